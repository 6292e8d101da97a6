// The scalar math that `pointwise:` expressions in ops.yaml may call: exp log sqrt rsqrt tanh
// sigmoid abs max min pow where.
//
// Generated functors (eager CPU kernels, fused tiles, CUDA device functions) call these
// unqualified from inside namespace lazygen::kernels, on arguments of the op's compute type T and
// on literals (`max(self, 0)` with T = float). So every binary function takes two template
// parameters and computes in their common type (the usual arithmetic conversions, as `a + b`
// would). Transcendental functions of integral arguments compute in float, PyTorch's default
// dtype. max and min propagate NaN like torch.maximum / torch.minimum.
//
// The header is include-free under NVRTC (__CUDACC_RTC__) so the CUDA JIT can prepend it to a
// kernel source; LAZYGEN_HD marks everything __host__ __device__ under CUDA compilers.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define LAZYGEN_HD __host__ __device__
#else
#define LAZYGEN_HD
#endif

#if !defined(__CUDACC_RTC__)
#include <cmath>
#endif

namespace lazygen::kernels {
namespace detail {

// The type of `a + b` for arithmetic A and B, without <type_traits> (unavailable under NVRTC).
template <class A, class B>
using common_t = decltype(false ? A() : B());

template <class T>
struct FloatOf {
  using type = float;  // integral and bool arguments compute in the default dtype
  static constexpr bool kIsFloat = false;
};
template <>
struct FloatOf<float> {
  using type = float;
  static constexpr bool kIsFloat = true;
};
template <>
struct FloatOf<double> {
  using type = double;
  static constexpr bool kIsFloat = true;
};
template <class T>
using float_of_t = typename FloatOf<T>::type;
template <class T>
inline constexpr bool kIsFloat = FloatOf<T>::kIsFloat;

#if defined(__CUDACC_RTC__)
#define LAZYGEN_MATH_FN(name)                  \
  LAZYGEN_HD inline float f##name(float x) {   \
    return ::name##f(x);                       \
  }                                            \
  LAZYGEN_HD inline double f##name(double x) { \
    return ::name(x);                          \
  }
#else
#define LAZYGEN_MATH_FN(name)                  \
  LAZYGEN_HD inline float f##name(float x) {   \
    return std::name(x);                       \
  }                                            \
  LAZYGEN_HD inline double f##name(double x) { \
    return std::name(x);                       \
  }
#endif
LAZYGEN_MATH_FN(exp)
LAZYGEN_MATH_FN(log)
LAZYGEN_MATH_FN(sqrt)
LAZYGEN_MATH_FN(tanh)
LAZYGEN_MATH_FN(fabs)
#undef LAZYGEN_MATH_FN

#if defined(__CUDACC_RTC__)
LAZYGEN_HD inline float fpow(float a, float b) {
  return ::powf(a, b);
}
LAZYGEN_HD inline double fpow(double a, double b) {
  return ::pow(a, b);
}
#else
LAZYGEN_HD inline float fpow(float a, float b) {
  return std::pow(a, b);
}
LAZYGEN_HD inline double fpow(double a, double b) {
  return std::pow(a, b);
}
#endif

// Integer power by squaring; negative exponents give 0 except for bases 1 and -1 (PyTorch's rule).
template <class I>
LAZYGEN_HD I ipow(I base, I exponent) {
  if (exponent < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exponent % 2 == 0) ? 1 : -1;
    return 0;
  }
  I result = 1;
  while (exponent > 0) {
    if (exponent & 1) result *= base;
    base *= base;
    exponent >>= 1;
  }
  return result;
}

}  // namespace detail

template <class T>
LAZYGEN_HD auto exp(T x) {
  return detail::fexp(static_cast<detail::float_of_t<T>>(x));
}
template <class T>
LAZYGEN_HD auto log(T x) {
  return detail::flog(static_cast<detail::float_of_t<T>>(x));
}
template <class T>
LAZYGEN_HD auto sqrt(T x) {
  return detail::fsqrt(static_cast<detail::float_of_t<T>>(x));
}
template <class T>
LAZYGEN_HD auto rsqrt(T x) {
  using F = detail::float_of_t<T>;
  return F(1) / detail::fsqrt(static_cast<F>(x));
}
template <class T>
LAZYGEN_HD auto tanh(T x) {
  return detail::ftanh(static_cast<detail::float_of_t<T>>(x));
}
template <class T>
LAZYGEN_HD auto sigmoid(T x) {
  using F = detail::float_of_t<T>;
  return F(1) / (F(1) + detail::fexp(-static_cast<F>(x)));
}

// |x| in x's own type (bool stays bool, as torch.abs keeps the dtype).
template <class T>
LAZYGEN_HD T abs(T x) {
  if constexpr (detail::kIsFloat<T>) {
    return detail::ffabs(x);  // also maps -0.0 to 0.0
  } else if constexpr (static_cast<T>(-1) < static_cast<T>(0)) {
    return x < T(0) ? static_cast<T>(-x) : x;
  } else {
    return x;  // bool (and unsigned) values are their own magnitude
  }
}

// The larger of a and b in their common type; NaN if either is NaN.
template <class A, class B>
LAZYGEN_HD auto max(A a, B b) {
  using C = detail::common_t<A, B>;
  C x = static_cast<C>(a), y = static_cast<C>(b);
  // x != x is true only for NaN; written so the comparison vectorizes into a blend.
  return (x != x) ? x : ((y != y) ? y : (x > y ? x : y));
}
// The smaller of a and b in their common type; NaN if either is NaN.
template <class A, class B>
LAZYGEN_HD auto min(A a, B b) {
  using C = detail::common_t<A, B>;
  C x = static_cast<C>(a), y = static_cast<C>(b);
  return (x != x) ? x : ((y != y) ? y : (x < y ? x : y));
}

// a ** b in the common type; integral types use exact integer powers.
template <class A, class B>
LAZYGEN_HD auto pow(A a, B b) {
  using C = decltype(+detail::common_t<A, B>());  // bool ** bool computes in int
  if constexpr (detail::kIsFloat<C>) {
    return detail::fpow(static_cast<C>(a), static_cast<C>(b));
  } else {
    return detail::ipow<C>(static_cast<C>(a), static_cast<C>(b));
  }
}

// `c ? a : b` with the result in the common type of a and b; c is tested for non-zero.
template <class C, class A, class B>
LAZYGEN_HD auto where(C c, A a, B b) {
  using R = detail::common_t<A, B>;
  return c ? static_cast<R>(a) : static_cast<R>(b);
}

}  // namespace lazygen::kernels
