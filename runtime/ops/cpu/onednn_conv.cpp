// Convolutions through oneDNN (onednn_conv.h, Note [oneDNN convolution]).
#include "ops/cpu/onednn_conv.h"

#include "core/env_flag.h"
#include "core/exit_wait.h"
#include "lazygen/conv.h"

#if __has_include(<oneapi/dnnl/dnnl.h>) && defined(__linux__)
#define LAZYGEN_HAVE_ONEDNN 1
#include <dlfcn.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <array>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/tensor/tensor_impl.h"
#include "core/thread_pool.h"
#endif

namespace lazygen {
namespace {
EnvSwitch& onednn_flag() {
  static EnvSwitch flag("LAZYGEN_ONEDNN", EnvSwitch::kOnByDefault);  // See lazygen/conv.h
  return flag;
}
}  // namespace

void set_onednn_enabled(bool enabled) {
  onednn_flag().set(enabled);
}

bool onednn_enabled() {
  return onednn_flag().on();
}

}  // namespace lazygen

namespace lazygen::cpu {

#if LAZYGEN_HAVE_ONEDNN
namespace {

// The C entry points this file calls, from the library dlopen found (null when it found none).
struct Dnnl {
  decltype(&dnnl_engine_create) engine_create;
  decltype(&dnnl_stream_create) stream_create;
  decltype(&dnnl_stream_wait) stream_wait;
  decltype(&dnnl_stream_destroy) stream_destroy;
  decltype(&dnnl_memory_desc_init_by_tag) md_init;
  decltype(&dnnl_memory_desc_equal) md_equal;
  decltype(&dnnl_memory_desc_get_size) md_size;
  decltype(&dnnl_memory_create) memory_create;
  decltype(&dnnl_memory_destroy) memory_destroy;
  decltype(&dnnl_dilated_convolution_forward_desc_init) forward_init;
  decltype(&dnnl_dilated_convolution_backward_data_desc_init) backward_data_init;
  decltype(&dnnl_dilated_convolution_backward_weights_desc_init) backward_weights_init;
  decltype(&dnnl_reorder_primitive_desc_create) reorder_pd_create;
  decltype(&dnnl_primitive_desc_create) pd_create;
  decltype(&dnnl_primitive_desc_destroy) pd_destroy;
  decltype(&dnnl_primitive_desc_query_md) pd_query_md;
  decltype(&dnnl_primitive_create) primitive_create;
  decltype(&dnnl_primitive_destroy) primitive_destroy;
  decltype(&dnnl_primitive_execute) execute;
  decltype(&dnnl_primitive_attr_create) attr_create;
  decltype(&dnnl_primitive_attr_set_scratchpad_mode) attr_set_scratchpad_mode;
  int (*omp_get_max_threads)();  // OpenMP's, from the runtime oneDNN loaded
  void (*omp_set_num_threads)(int);
  dnnl_engine_t engine = nullptr;
  // Every primitive's attributes: scratchpads are ours (allocated per execution), so that threads
  // may run one primitive at the same time.
  dnnl_primitive_attr_t attr = nullptr;
};

template <class F>
bool bind(void* library, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(library, name));
  return f != nullptr;
}

std::unique_ptr<Dnnl> open_dnnl() {
  void* library = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) return nullptr;
  auto d = std::make_unique<Dnnl>();
  const bool all =
      bind(library, "dnnl_engine_create", d->engine_create) &&
      bind(library, "dnnl_stream_create", d->stream_create) &&
      bind(library, "dnnl_stream_wait", d->stream_wait) &&
      bind(library, "dnnl_stream_destroy", d->stream_destroy) &&
      bind(library, "dnnl_memory_desc_init_by_tag", d->md_init) &&
      bind(library, "dnnl_memory_desc_equal", d->md_equal) &&
      bind(library, "dnnl_memory_desc_get_size", d->md_size) &&
      bind(library, "dnnl_memory_create", d->memory_create) &&
      bind(library, "dnnl_memory_destroy", d->memory_destroy) &&
      bind(library, "dnnl_dilated_convolution_forward_desc_init", d->forward_init) &&
      bind(library, "dnnl_dilated_convolution_backward_data_desc_init", d->backward_data_init) &&
      bind(library, "dnnl_dilated_convolution_backward_weights_desc_init",
           d->backward_weights_init) &&
      bind(library, "dnnl_reorder_primitive_desc_create", d->reorder_pd_create) &&
      bind(library, "dnnl_primitive_desc_create", d->pd_create) &&
      bind(library, "dnnl_primitive_desc_destroy", d->pd_destroy) &&
      bind(library, "dnnl_primitive_desc_query_md", d->pd_query_md) &&
      bind(library, "dnnl_primitive_create", d->primitive_create) &&
      bind(library, "dnnl_primitive_destroy", d->primitive_destroy) &&
      bind(library, "dnnl_primitive_execute", d->execute) &&
      bind(library, "dnnl_primitive_attr_create", d->attr_create) &&
      bind(library, "dnnl_primitive_attr_set_scratchpad_mode", d->attr_set_scratchpad_mode) &&
      bind(library, "omp_get_max_threads", d->omp_get_max_threads) &&
      bind(library, "omp_set_num_threads", d->omp_set_num_threads);
  if (!all || d->engine_create(&d->engine, dnnl_cpu, 0) != dnnl_success ||
      d->attr_create(&d->attr) != dnnl_success ||
      d->attr_set_scratchpad_mode(d->attr, dnnl_scratchpad_mode_user) != dnnl_success) {
    return nullptr;
  }
  return d;  // the library stays open for the life of the process
}

// Never destroyed: threads' streams (thread_stream) and cached primitives are released at exit
// through it, after static destructors may have run.
const Dnnl* dnnl() {
  static const Dnnl* const d = [] {
    const Dnnl* opened = open_dnnl().release();
    wait_at_exit();  // after the library's own statics (Note [Finishing asynchronous work at exit])
    return opened;
  }();
  return d;
}

void check(dnnl_status_t status, const char* what) {
  if (status != dnnl_success) {
    throw std::runtime_error(std::string("lazygen: oneDNN ") + what + " failed (status " +
                             std::to_string(static_cast<int>(status)) + ")");
  }
}

// A primitive and the scratchpad it needs per execution.
struct Step {
  dnnl_primitive_t primitive = nullptr;
  dnnl_memory_desc_t scratchpad{};
};

Step make_step(const Dnnl& d, const_dnnl_primitive_desc_t pd) {
  Step step;
  check(d.primitive_create(&step.primitive, pd), "primitive");
  step.scratchpad = *d.pd_query_md(pd, dnnl_query_scratchpad_md, 0);
  return step;
}

// One operand of a convolution: its NCHW layout in our tensor and the layout the primitive
// reads or writes, with the reorder between them when they differ.
struct Operand {
  int arg = 0;  // DNNL_ARG_*
  dnnl_memory_desc_t user{};
  dnnl_memory_desc_t inner{};
  Step reorder;  // user -> inner for inputs, inner -> user for the output; none when equal
};

// A convolution pass ready to run: the primitive and its operands (inputs first, output last).
struct Prepared {
  Step conv;
  std::vector<Operand> operands;
};

dnnl_memory_desc_t plain(const Dnnl& d, std::vector<int64_t> dims, dnnl_format_tag_t tag) {
  dnnl_memory_desc_t md;
  check(d.md_init(&md, static_cast<int>(dims.size()), dims.data(), dnnl_f32, tag), "memory desc");
  return md;
}

struct Descs {
  dnnl_memory_desc_t src, weights, dst, bias;  // ours (plain)
  dnnl_memory_desc_t any_src, any_weights, any_dst;
  dnnl_dims_t strides, dilates, pad_l, pad_r;
};

Descs descs(const Dnnl& d, const Conv2dGeometry& g) {
  Descs s{};
  s.src = plain(d, {g.n, g.c, g.h, g.w}, dnnl_nchw);
  s.dst = plain(d, {g.n, g.o, g.oh, g.ow}, dnnl_nchw);
  s.bias = plain(d, {g.o}, dnnl_a);
  s.weights = g.groups == 1 ? plain(d, {g.o, g.c, g.kh, g.kw}, dnnl_oihw)
                            : plain(d, {g.groups, g.out_per_group(), g.in_per_group(), g.kh, g.kw},
                                    dnnl_goihw);
  s.any_src = plain(d, {g.n, g.c, g.h, g.w}, dnnl_format_tag_any);
  s.any_dst = plain(d, {g.n, g.o, g.oh, g.ow}, dnnl_format_tag_any);
  s.any_weights = g.groups == 1
                      ? plain(d, {g.o, g.c, g.kh, g.kw}, dnnl_format_tag_any)
                      : plain(d, {g.groups, g.out_per_group(), g.in_per_group(), g.kh, g.kw},
                              dnnl_format_tag_any);
  const int64_t values[4][2] = {
      {g.sh, g.sw}, {g.dh - 1, g.dw - 1}, {g.ph, g.pw}, {g.ph, g.pw}};  // symmetric padding
  for (int k = 0; k < 2; ++k) {
    s.strides[k] = values[0][k];
    s.dilates[k] = values[1][k];
    s.pad_l[k] = values[2][k];
    s.pad_r[k] = values[3][k];
  }
  return s;
}

dnnl_primitive_desc_t forward_pd(const Dnnl& d, const Descs& s, bool bias) {
  dnnl_convolution_desc_t cd;
  check(d.forward_init(&cd, dnnl_forward_training, dnnl_convolution_direct, &s.any_src,
                       &s.any_weights, bias ? &s.bias : nullptr, &s.any_dst, s.strides, s.dilates,
                       s.pad_l, s.pad_r),
        "convolution forward desc");
  dnnl_primitive_desc_t pd;
  check(d.pd_create(&pd, &cd, d.attr, d.engine, nullptr), "convolution forward");
  return pd;
}

// The operand `arg` of pd, whose layout is `user` in our tensor (`output`: written by pd).
Operand operand(const Dnnl& d, const_dnnl_primitive_desc_t pd, dnnl_query_t query, int arg,
                const dnnl_memory_desc_t& user, bool output) {
  Operand op;
  op.arg = arg;
  op.user = user;
  op.inner = *d.pd_query_md(pd, query, 0);
  if (d.md_equal(&op.user, &op.inner) == 0) {
    const dnnl_memory_desc_t& from = output ? op.inner : op.user;
    const dnnl_memory_desc_t& to = output ? op.user : op.inner;
    dnnl_primitive_desc_t rpd;
    check(d.reorder_pd_create(&rpd, &from, d.engine, &to, d.engine, d.attr), "reorder");
    op.reorder = make_step(d, rpd);
    d.pd_destroy(rpd);
  }
  return op;
}

void destroy(const Dnnl& d, const Prepared& p) {
  d.primitive_destroy(p.conv.primitive);
  for (const Operand& op : p.operands) {
    if (op.reorder.primitive != nullptr) d.primitive_destroy(op.reorder.primitive);
  }
}

Prepared prepare(const Dnnl& d, const Conv2dGeometry& g, ConvPass pass, bool bias) {
  const Descs s = descs(d, g);
  dnnl_primitive_desc_t hint = forward_pd(d, s, bias);
  dnnl_primitive_desc_t pd = hint;
  Prepared p;
  if (pass == ConvPass::Forward) {
    p.operands = {operand(d, pd, dnnl_query_src_md, DNNL_ARG_SRC, s.src, false),
                  operand(d, pd, dnnl_query_weights_md, DNNL_ARG_WEIGHTS, s.weights, false)};
    if (bias) p.operands.push_back(Operand{DNNL_ARG_BIAS, s.bias, s.bias, Step{}});
    p.operands.push_back(operand(d, pd, dnnl_query_dst_md, DNNL_ARG_DST, s.dst, true));
  } else {
    dnnl_convolution_desc_t cd;
    if (pass == ConvPass::BackwardInput) {
      check(d.backward_data_init(&cd, dnnl_convolution_direct, &s.any_src, &s.any_weights,
                                 &s.any_dst, s.strides, s.dilates, s.pad_l, s.pad_r),
            "convolution backward data desc");
    } else {
      check(d.backward_weights_init(&cd, dnnl_convolution_direct, &s.any_src, &s.any_weights,
                                    nullptr, &s.any_dst, s.strides, s.dilates, s.pad_l, s.pad_r),
            "convolution backward weights desc");
    }
    check(d.pd_create(&pd, &cd, d.attr, d.engine, hint), "convolution backward");
    p.operands.push_back(operand(d, pd, dnnl_query_diff_dst_md, DNNL_ARG_DIFF_DST, s.dst, false));
    if (pass == ConvPass::BackwardInput) {
      p.operands.push_back(
          operand(d, pd, dnnl_query_weights_md, DNNL_ARG_WEIGHTS, s.weights, false));
      p.operands.push_back(operand(d, pd, dnnl_query_diff_src_md, DNNL_ARG_DIFF_SRC, s.src, true));
    } else {
      p.operands.push_back(operand(d, pd, dnnl_query_src_md, DNNL_ARG_SRC, s.src, false));
      p.operands.push_back(
          operand(d, pd, dnnl_query_diff_weights_md, DNNL_ARG_DIFF_WEIGHTS, s.weights, true));
    }
  }
  p.conv = make_step(d, pd);
  if (pd != hint) d.pd_destroy(pd);
  d.pd_destroy(hint);
  return p;
}

// Prepared passes by geometry, pass and bias, the kMaxPrepared most recently used (a program with
// changing batch sizes would otherwise keep primitives for every size). An evicted pass lives on
// while a thread still runs it.
std::shared_ptr<const Prepared> prepared(const Dnnl& d, const Conv2dGeometry& g, ConvPass pass,
                                         bool bias) {
  constexpr size_t kMaxPrepared = 256;
  using Key = std::array<int64_t, 18>;
  struct Entry {
    std::shared_ptr<const Prepared> prepared;
    std::list<Key>::iterator recency;
  };
  // Never destroyed (Note [Finishing asynchronous work at exit] in core/exit_wait.h).
  static auto* const mutex = new std::mutex;
  static auto* const cache = new std::map<Key, Entry>;
  static auto* const recency = new std::list<Key>;  // most recent first
  const Key key = {g.n,
                   g.c,
                   g.h,
                   g.w,
                   g.o,
                   g.kh,
                   g.kw,
                   g.sh,
                   g.sw,
                   g.ph,
                   g.pw,
                   g.dh,
                   g.dw,
                   g.oh,
                   g.ow,
                   g.groups,
                   static_cast<int64_t>(pass),
                   bias ? 1 : 0};
  std::lock_guard<std::mutex> lock(*mutex);
  auto it = cache->find(key);
  if (it != cache->end()) {
    recency->splice(recency->begin(), *recency, it->second.recency);
    return it->second.prepared;
  }
  auto made = std::shared_ptr<const Prepared>(new Prepared(prepare(d, g, pass, bias)),
                                              [&d](const Prepared* p) {
                                                destroy(d, *p);
                                                delete p;
                                              });
  recency->push_front(key);
  cache->emplace(key, Entry{made, recency->begin()});
  if (cache->size() > kMaxPrepared) {
    cache->erase(recency->back());
    recency->pop_back();
  }
  return made;
}

// A oneDNN memory object over `data`, destroyed with the handle.
struct Memory {
  const Dnnl& d;
  dnnl_memory_t m = nullptr;
  Memory(const Dnnl& dn, const dnnl_memory_desc_t& md, void* data) : d(dn) {
    check(d.memory_create(&m, &md, d.engine, data), "memory");
  }
  ~Memory() { d.memory_destroy(m); }
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;
};

// The calling thread's stream, destroyed when the thread exits.
dnnl_stream_t thread_stream(const Dnnl& d) {
  struct Stream {
    const Dnnl& d;
    dnnl_stream_t s = nullptr;
    explicit Stream(const Dnnl& dn) : d(dn) {
      check(d.stream_create(&s, d.engine, dnnl_stream_default_flags), "stream");
    }
    ~Stream() { d.stream_destroy(s); }
  };
  thread_local Stream stream(d);
  return stream.s;
}

// Runs `step` on `args` with a scratchpad of its own, waiting for it to finish.
void run(const Dnnl& d, const Step& step, dnnl_stream_t stream, std::vector<dnnl_exec_arg_t> args) {
  const size_t bytes = d.md_size(&step.scratchpad);
  Tensor scratch;
  std::unique_ptr<Memory> scratchpad;
  if (bytes > 0) {
    scratch = make_cpu_tensor({static_cast<int64_t>((bytes + sizeof(float) - 1) / sizeof(float))},
                              DType::Float32);
    scratchpad = std::make_unique<Memory>(d, step.scratchpad, scratch.data_ptr<float>());
    args.push_back({DNNL_ARG_SCRATCHPAD, scratchpad->m});
  }
  check(d.execute(step.primitive, stream, static_cast<int>(args.size()), args.data()), "execute");
  check(d.stream_wait(stream), "stream wait");
}

// One oneDNN call of `pass` over g (all of the batch or a chunk of it), on the calling thread.
void run_pass(const Dnnl& d, ConvPass pass, const Conv2dGeometry& g, const float* a, const float* b,
              const float* bias, float* out) {
  const std::shared_ptr<const Prepared> held = prepared(d, g, pass, bias != nullptr);
  const Prepared& p = *held;
  const dnnl_stream_t stream = thread_stream(d);
  // Our buffers in operand order: the inputs, then the output.
  std::vector<void*> ours = {const_cast<float*>(a), const_cast<float*>(b)};
  if (pass == ConvPass::Forward && bias != nullptr) ours.push_back(const_cast<float*>(bias));
  ours.push_back(out);
  std::vector<std::unique_ptr<Memory>> user, inner;
  std::vector<Tensor> scratch;
  std::vector<dnnl_exec_arg_t> args;
  for (size_t k = 0; k < p.operands.size(); ++k) {
    const Operand& op = p.operands[k];
    user.push_back(std::make_unique<Memory>(d, op.user, ours[k]));
    if (op.reorder.primitive == nullptr) {
      args.push_back({op.arg, user.back()->m});
      continue;
    }
    const auto floats =
        static_cast<int64_t>((d.md_size(&op.inner) + sizeof(float) - 1) / sizeof(float));
    scratch.push_back(make_cpu_tensor({floats}, DType::Float32));
    inner.push_back(std::make_unique<Memory>(d, op.inner, scratch.back().data_ptr<float>()));
    args.push_back({op.arg, inner.back()->m});
    const bool output = k + 1 == p.operands.size();
    if (!output) {
      run(d, op.reorder, stream, {{DNNL_ARG_FROM, user.back()->m}, {DNNL_ARG_TO, inner.back()->m}});
    }
  }
  run(d, p.conv, stream, args);
  const Operand& result = p.operands.back();
  if (result.reorder.primitive != nullptr) {
    run(d, result.reorder, stream,
        {{DNNL_ARG_FROM, inner.back()->m}, {DNNL_ARG_TO, user.back()->m}});
  }
}

// OpenMP runs one thread on the calling thread while this lives (oneDNN then makes no OpenMP
// team: See Note [oneDNN convolution]); the thread's setting is restored after.
class OneOpenMpThread {
 public:
  explicit OneOpenMpThread(const Dnnl& d) : d_(d), saved_(d.omp_get_max_threads()) {
    if (saved_ != 1) d_.omp_set_num_threads(1);
  }
  ~OneOpenMpThread() {
    if (saved_ != 1) d_.omp_set_num_threads(saved_);
  }
  OneOpenMpThread(const OneOpenMpThread&) = delete;
  OneOpenMpThread& operator=(const OneOpenMpThread&) = delete;

 private:
  const Dnnl& d_;
  int saved_;
};

}  // namespace

bool onednn_conv_runs(const Conv2dGeometry& g, ConvPass pass) {
  const int64_t plane = g.oh * g.ow;
  const int64_t least = pass == ConvPass::BackwardWeight ? kMinWeightPlane : kMinPlane;
  return onednn_enabled() && g.n > 0 && plane >= least && dnnl() != nullptr;
}

void onednn_conv(ConvPass pass, const Conv2dGeometry& g, const float* a, const float* b,
                 const float* bias, float* out) {
  const Dnnl& d = *dnnl();
  const int64_t threads = std::min<int64_t>(num_threads(), g.n);
  const int64_t per = (g.n + threads - 1) / threads;  // samples per chunk; the last may be short
  const int64_t chunks = (g.n + per - 1) / per;  // none empty (7 samples on 4 threads: 2+2+2+1)
  // Weight gradients: chunk 0 writes `out`, the others partial sums added to it at the end.
  const int64_t weights = g.o * g.in_per_group() * g.kh * g.kw;
  Tensor partials = pass == ConvPass::BackwardWeight && chunks > 1
                        ? make_cpu_tensor({chunks - 1, weights}, DType::Float32)
                        : Tensor();
  parallel_for(0, chunks, 1, [&](int64_t first, int64_t end) {
    const OneOpenMpThread one(d);
    for (int64_t k = first; k < end; ++k) {
      Conv2dGeometry part = g;
      part.n = std::min(per, g.n - k * per);
      const int64_t in = k * per * g.c * g.h * g.w, outs = k * per * g.o * g.oh * g.ow;
      switch (pass) {
        case ConvPass::Forward:
          run_pass(d, pass, part, a + in, b, bias, out + outs);
          break;
        case ConvPass::BackwardInput:
          run_pass(d, pass, part, a + outs, b, nullptr, out + in);
          break;
        case ConvPass::BackwardWeight:
          run_pass(d, pass, part, a + outs, b + in, nullptr,
                   k == 0 ? out : partials.data_ptr<float>() + (k - 1) * weights);
          break;
      }
    }
  });
  for (int64_t k = 1; k < chunks && pass == ConvPass::BackwardWeight; ++k) {
    const float* partial = partials.data_ptr<float>() + (k - 1) * weights;
    for (int64_t i = 0; i < weights; ++i) out[i] += partial[i];
  }
  // The first pass of each kind has constructed the statics oneDNN makes on first use for it
  // (Note [Finishing asynchronous work at exit] in core/exit_wait.h).
  static std::once_flag after_first[3];
  std::call_once(after_first[static_cast<int>(pass)], wait_at_exit);
}

#else  // built without oneDNN's header: every convolution runs im2col

bool onednn_conv_runs(const Conv2dGeometry&, ConvPass) {
  return false;
}

void onednn_conv(ConvPass, const Conv2dGeometry&, const float*, const float*, const float*,
                 float*) {}

#endif

}  // namespace lazygen::cpu
