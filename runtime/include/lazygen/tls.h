// LAZYGEN_FAST_TLS: the initial-exec model for a hot, small thread_local (See Note [Fast TLS]).
//
// Note [Fast TLS]
// ~~~~~~~~~~~~~~~
// lazygen's libraries are shared (Note [Shared libraries] in cmake/LazygenOptions.cmake). In a
// shared library a thread_local is reached through __tls_get_addr (the general-dynamic model)
// unless the library asks for initial-exec, which addresses it at a fixed offset from the thread
// pointer, as in a program or a static link. Tracing an op reads several (the bound trie cache,
// the trace context, the counters' slots), so they take initial-exec. The cost: initial-exec
// variables live in the static TLS block, of which glibc keeps a few hundred bytes spare for
// libraries loaded later (the PyTorch device's module loads the runtime from Python), so only
// pointers, flags and counters take it, never whole objects.
#pragma once

#if defined(__GNUC__) && defined(__ELF__)
#define LAZYGEN_FAST_TLS __attribute__((tls_model("initial-exec")))
#else
#define LAZYGEN_FAST_TLS
#endif
