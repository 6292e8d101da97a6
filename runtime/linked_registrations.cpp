// Compiled into every program and library that links a lazygen runtime (an INTERFACE source of
// lazygen::runtime and of the runtimes lazygen_add_runtime builds; lazygen_runtime_link_options
// in cmake/LazygenKernels.cmake): references to the registrations that static initializers make
// and that no program calls by name, so that they run.
//   - The lazy device's hooks (exec/lazy_device.cpp) and the cpu backends, fused and unfused
//     (backend/cpu/fusion/fused_compile.cpp, backend/cpu/lowering_backend.cpp), live in layer
//     libraries below the op API (Note [Runtime layers] in runtime/CMakeLists.txt) that a program
//     may call nothing of: with --as-needed (Debian's default) the linker would leave such a
//     shared library out, and from a static library it would leave their object files out.
//   - The op layer's traced cast for the lazy device (ops/composite/cast.cpp; Note [Traced casts]
//   in
//     exec/lazy_device.h), which Tensor::to reaches through a hook, not by name.
//   - A reference from the program's own object keeps them all.
extern const bool lazygen_lazy_device_linked;
extern const bool lazygen_cpu_fused_backend_linked;
extern const bool lazygen_cpu_lowering_backend_linked;
extern const bool lazygen_lazy_cast_linked;

namespace {

[[gnu::used]] const bool* const kLinkedRegistrations[] = {
    &lazygen_lazy_device_linked, &lazygen_cpu_fused_backend_linked,
    &lazygen_cpu_lowering_backend_linked, &lazygen_lazy_cast_linked};

}  // namespace
