// The scalar math that `pointwise:` expressions in ops.yaml may call; the generator's table
// (generator/model/pointwise_functions.cpp, See Note [Pointwise functions]) lists them, and
// `lazygen --functions` prints it.
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

// f<name>(x): the C math function for float and double (<cmath> on the host, CUDA's builtins
// under NVRTC, where std:: is unavailable).
#if defined(__CUDACC_RTC__)
#define LAZYGEN_MATH_FN(name)                  \
  LAZYGEN_HD inline float f##name(float x) {   \
    return ::name##f(x);                       \
  }                                            \
  LAZYGEN_HD inline double f##name(double x) { \
    return ::name(x);                          \
  }
#define LAZYGEN_MATH_FN2(name)                           \
  LAZYGEN_HD inline float f##name(float x, float y) {    \
    return ::name##f(x, y);                              \
  }                                                      \
  LAZYGEN_HD inline double f##name(double x, double y) { \
    return ::name(x, y);                                 \
  }
#else
#define LAZYGEN_MATH_FN(name)                  \
  LAZYGEN_HD inline float f##name(float x) {   \
    return std::name(x);                       \
  }                                            \
  LAZYGEN_HD inline double f##name(double x) { \
    return std::name(x);                       \
  }
#define LAZYGEN_MATH_FN2(name)                           \
  LAZYGEN_HD inline float f##name(float x, float y) {    \
    return std::name(x, y);                              \
  }                                                      \
  LAZYGEN_HD inline double f##name(double x, double y) { \
    return std::name(x, y);                              \
  }
#endif
LAZYGEN_MATH_FN(exp)
LAZYGEN_MATH_FN(log)
LAZYGEN_MATH_FN(sqrt)
LAZYGEN_MATH_FN(tanh)
LAZYGEN_MATH_FN(fabs)
LAZYGEN_MATH_FN(sin)
LAZYGEN_MATH_FN(cos)
LAZYGEN_MATH_FN(tan)
LAZYGEN_MATH_FN(asin)
LAZYGEN_MATH_FN(acos)
LAZYGEN_MATH_FN(atan)
LAZYGEN_MATH_FN(sinh)
LAZYGEN_MATH_FN(cosh)
LAZYGEN_MATH_FN(asinh)
LAZYGEN_MATH_FN(acosh)
LAZYGEN_MATH_FN(atanh)
LAZYGEN_MATH_FN(erf)
LAZYGEN_MATH_FN(erfc)
LAZYGEN_MATH_FN(log1p)
LAZYGEN_MATH_FN(expm1)
LAZYGEN_MATH_FN(log2)
LAZYGEN_MATH_FN(log10)
LAZYGEN_MATH_FN(exp2)
LAZYGEN_MATH_FN(floor)
LAZYGEN_MATH_FN(ceil)
LAZYGEN_MATH_FN(trunc)
LAZYGEN_MATH_FN(nearbyint)
LAZYGEN_MATH_FN2(pow)
LAZYGEN_MATH_FN2(atan2)
LAZYGEN_MATH_FN2(hypot)
LAZYGEN_MATH_FN2(copysign)
LAZYGEN_MATH_FN2(fmod)
LAZYGEN_MATH_FN2(nextafter)
#undef LAZYGEN_MATH_FN
#undef LAZYGEN_MATH_FN2

// Note [Vectorizable exp and erf]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The `exp` and `erf` a pointwise expression calls are, for float on the host, branch-free
// versions GCC vectorizes inside the tile and eager loops (glibc's expf and erff are scalar
// calls): erf over float runs at 2.6-2.9 ns an element through verf, 16-20 through erff. A
// double literal takes the compute type (fp<T>, below), so gelu's erf takes this path too.
// Accuracy against double over all 2^32 float arguments: vexp within 1.16 ulp of exp,
// verf within 2.8 ulp of erf (glibc's: within 1; the worst case sits at erf's 0.5 binade edge,
// elsewhere within 2.1); pointwise_math_test.cpp checks a sample of every 997th float. NaN,
// infinities and signed zeros are IEEE's.
//   vexp: x = n ln2 + r, n rounded by the 1.5 * 2^23 shifter, r in two parts of ln2; exp(r) by
//         its Taylor series through r^8 (|r| <= ln2 / 2); 2^n scaled in two halves, so that
//         results near overflow and in the subnormals come out right.
//   verf: |x| < 0.8: x P(x^2), P of degree 7; else 1 - exp(-x^2) Q(1 / (1 + x / 2) - 1/2), Q of
//         degree 7; 1 beyond 4. P and Q are least-squares fits in double to erf(x) / x and
//         erfc(x) exp(x^2) (relative error 4e-11 and 1.4e-9), so float rounding decides the
//         error. Both branches are computed and one selected: no control flow in the loop.
// Everything else here, and double, stays with the C library; CUDA uses its own builtins.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
LAZYGEN_HD inline float vexp(float x) {
  return fexp(x);
}
LAZYGEN_HD inline float verf(float x) {
  return ferf(x);
}
#else
inline float vexp(float x) {
  float xc = x < -104.0f ? -104.0f : x;  // exp rounds to 0 below, overflows above
  xc = xc > 89.0f ? 89.0f : xc;
  constexpr float kShifter = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const float shifted = xc * 1.44269504088896341f + kShifter;
  const float n = shifted - kShifter;
  const float r = (xc - n * 0.693145751953125f) - n * 1.428606765330187045e-06f;
  float p = 1.0f / 40320;
  p = p * r + 1.0f / 5040;
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  static_assert(sizeof(int) == sizeof(float));
  const int ni = __builtin_bit_cast(int, shifted) - __builtin_bit_cast(int, kShifter);
  const int n1 = ni >> 1, n2 = ni - n1;  // exponents in [-75, 64]: each 2^n1, 2^n2 is normal
  const float y =
      p * __builtin_bit_cast(float, (n1 + 127) << 23) * __builtin_bit_cast(float, (n2 + 127) << 23);
  return x != x ? x : y;
}
inline float verf(float x) {
  const float a = std::fabs(x), u = x * x;
  float s = -9.673595403e-06f;
  s = s * u + 1.126826003e-04f;
  s = s * u + -8.484398132e-04f;
  s = s * u + 5.221053584e-03f;
  s = s * u + -2.686543840e-02f;
  s = s * u + 1.128378262e-01f;
  s = s * u + -3.761263848e-01f;
  s = s * u + 1.128379167e+00f;
  const float t = 1.0f / (1.0f + 0.5f * a) - 0.5f;
  float q = 1.201528954e-01f;
  q = q * t + -5.359158308e-02f;
  q = q * t + -2.238011827e-01f;
  q = q * t + 5.971605818e-02f;
  q = q * t + 6.318277094e-01f;
  q = q * t + 9.666328287e-01f;
  q = q * t + 8.543716969e-01f;
  q = q * t + 2.553956763e-01f;
  const float tail = 1.0f - vexp(-u) * q;
  const float m = a < 0.8f ? a * s : (a > 4.0f ? 1.0f : tail);
  return x != x ? x : std::copysign(m, x);
}
#endif
LAZYGEN_HD inline double vexp(double x) {
  return fexp(x);
}
LAZYGEN_HD inline double verf(double x) {
  return ferf(x);
}

// log|Gamma(x)|. The host uses the reentrant lgamma_r: glibc's lgamma writes the global signgam,
// a data race between kernel threads.
LAZYGEN_HD inline float flgamma(float x) {
#if defined(__CUDA_ARCH__) || defined(__CUDACC_RTC__)
  return ::lgammaf(x);
#else
  int sign = 0;
  return ::lgammaf_r(x, &sign);
#endif
}
LAZYGEN_HD inline double flgamma(double x) {
#if defined(__CUDA_ARCH__) || defined(__CUDACC_RTC__)
  return ::lgamma(x);
#else
  int sign = 0;
  return ::lgamma_r(x, &sign);
#endif
}

template <class F>
LAZYGEN_HD F infinity() {
  return F(1) / F(0);  // IEEE +inf, without <limits>
}
template <class F>
LAZYGEN_HD F quiet_nan() {
  return F(0) / F(0);
}

// The inverse error function: Winitzki's closed form (relative error < 2e-3) refined by three
// Newton steps on erf(x) = y, each squaring the relative error, so float and double end at their
// precision. erfinv(+-1) = +-inf; NaN for NaN and |y| > 1.
template <class F>
LAZYGEN_HD F erfinv_of(F y) {
  if (!(y >= F(-1) && y <= F(1))) return quiet_nan<F>();
  if (y == F(1) || y == F(-1)) return y * infinity<F>();
  const F a = F(0.147);
  const F l = flog((F(1) - y) * (F(1) + y));
  const F t = F(2) / (F(3.14159265358979323846) * a) + l / F(2);
  F x = fsqrt(fsqrt(t * t - l / a) - t);
  x = y < F(0) ? -x : x;
  const F two_over_sqrt_pi = F(1.12837916709551257390);
  for (int i = 0; i < 3; ++i) x -= (ferf(x) - y) / (two_over_sqrt_pi * fexp(-x * x));
  return x;
}

// The digamma function psi = (log Gamma)' with PyTorch's values at its poles: psi(+0) = -inf,
// psi(-0) = +inf, NaN at negative integers. Reflection for x < 0, the recurrence up to x >= 10,
// then the asymptotic series through x^-14 (its error is below double precision there).
template <class F>
LAZYGEN_HD F digamma_of(F x) {
  const F pi = F(3.14159265358979323846);
  if (x == F(0)) return (F(1) / x) < F(0) ? infinity<F>() : -infinity<F>();
  F shift = F(0);
  if (x < F(0)) {
    if (x == ffloor(x)) return quiet_nan<F>();
    shift = -pi / ftan(pi * x);  // psi(x) = psi(1 - x) - pi / tan(pi x)
    x = F(1) - x;
  }
  for (; x < F(10); x += F(1)) shift -= F(1) / x;
  const F r = F(1) / (x * x);
  // sum over k of B_2k / (2k x^2k), Horner in r from k = 7 down
  F series = F(691) / F(32760) - r * (F(1) / F(12));
  series = F(1) / F(132) - r * series;
  series = F(1) / F(240) - r * series;
  series = F(1) / F(252) - r * series;
  series = F(1) / F(120) - r * series;
  series = F(1) / F(12) - r * series;
  return shift + flog(x) - F(0.5) / x - r * series;
}

// Half the distance from 1 to the next value of F: the relative precision of a rounded result.
template <class F>
LAZYGEN_HD F unit_roundoff() {
  return sizeof(F) == sizeof(float) ? F(5.9604645e-8) : F(1.1102230246251565e-16);
}

// The Hurwitz zeta function zeta(s, q) = sum over k >= 0 of (q + k)^-s, for s > 1: +inf at a pole
// (q a non-positive integer). The terms are summed while q + k <= 9 (and at least 9 of them),
// then the rest by Euler-Maclaurin: a^(1-s) / (s-1) + a^-s / 2 + sum over j of
// s (s+1) ... (s+2j-2) B_2j / (2j)! a^(-s-2j+1) at a = q + k, through B_24 or until a term no
// longer changes the sum.
template <class F>
LAZYGEN_HD F hurwitz_zeta(F s, F q) {
  // (2j)! / B_2j for j = 1..12.
  constexpr double kInverseCoefficients[12] = {12.0,
                                               -720.0,
                                               30240.0,
                                               -1209600.0,
                                               47900160.0,
                                               -1892437580.3183792,
                                               74724249600.0,
                                               -2950130727918.164,
                                               116467828143500.67,
                                               -4597978722407473.0,
                                               1.8152105401943546e+17,
                                               -7.166165256175667e+18};
  if (!(s > F(1))) return s == F(1) ? infinity<F>() : quiet_nan<F>();
  if (q <= F(0) && q == ffloor(q)) return infinity<F>();
  F sum = F(0), a = q;
  for (int k = 0; k < 9 || a <= F(9); ++k, a += F(1)) {
    const F term = fpow(a, -s);
    sum += term;
    if (ffabs(term) <= unit_roundoff<F>() * ffabs(sum)) return sum;
  }
  const F power = fpow(a, -s);
  sum += a * power / (s - F(1)) + F(0.5) * power;
  F rising = s, scaled = power / a;  // s (s+1) ... (s+2j-2), a^(-s-2j+1)
  for (int j = 0; j < 12; ++j) {
    const F term = rising * scaled / F(kInverseCoefficients[j]);
    sum += term;
    if (ffabs(term) <= unit_roundoff<F>() * ffabs(sum)) break;
    rising *= (s + F(2 * j + 1)) * (s + F(2 * j + 2));
    scaled /= a * a;
  }
  return sum;
}

// The trigamma function psi' as PyTorch computes it, so that both answer alike: reflection below
// 1/2, six steps of the recurrence psi'(x) = psi'(x + 1) + 1 / x^2, then the asymptotic series
// through x^-7 (about 1e-9 relative, PyTorch's precision). At the poles x = 0, -1, ... the
// reflection's sin(pi x) is 0 only at 0 (+inf); elsewhere it is tiny and the result huge.
template <class F>
LAZYGEN_HD F trigamma_of(F x) {
  const F pi = F(3.14159265358979323846);
  F sign = F(1), result = F(0);
  if (x < F(0.5)) {
    sign = F(-1);
    const F s = fsin(pi * x);
    result -= pi * pi / (s * s);  // psi'(1 - x) + psi'(x) = pi^2 / sin^2(pi x)
    x = F(1) - x;
  }
  for (int i = 0; i < 6; ++i, x += F(1)) result += F(1) / (x * x);
  const F r = F(1) / (x * x);
  result +=
      (F(1) + F(1) / (F(2) * x) + r * (F(1) / F(6) - r * (F(1) / F(30) - r * (F(1) / F(42))))) / x;
  return sign * result;
}

// The n-th derivative of digamma for a whole n >= 0 (the op checks it): digamma for n = 0,
// trigamma for n = 1, else (-1)^(n+1) n! zeta(n + 1, x) (-inf or +inf at the poles x = 0, -1, ...,
// as zeta's sign gives).
template <class F>
LAZYGEN_HD F polygamma_of(F n, F x) {
  if (n == F(0)) return digamma_of(x);
  if (n == F(1)) return trigamma_of(x);
  F factorial = F(1);
  for (F k = F(2); k <= n; k += F(1)) factorial *= k;
  const F sign = ffloor(n / F(2)) * F(2) == n ? F(-1) : F(1);
  return sign * factorial * hurwitz_zeta(n + F(1), x);
}

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

// A double literal of a `pointwise:` expression, which the generator writes as `fp<T>(0.5)`: of
// the compute type T when T is floating, so that float kernels compute in float as PyTorch's do
// (a bare `0.5` would promote `self * 0.5` to double); float, PyTorch's default dtype, for
// integral and bool T.
template <class T>
using fp = detail::float_of_t<T>;

// ---- Of one value, in floating point (integral and bool arguments compute in float) ----
#define LAZYGEN_FLOATING_FN(name, impl)                         \
  template <class T>                                            \
  LAZYGEN_HD auto name(T x) {                                   \
    return detail::impl(static_cast<detail::float_of_t<T>>(x)); \
  }
LAZYGEN_FLOATING_FN(exp, vexp)
LAZYGEN_FLOATING_FN(log, flog)
LAZYGEN_FLOATING_FN(sqrt, fsqrt)
LAZYGEN_FLOATING_FN(tanh, ftanh)
LAZYGEN_FLOATING_FN(sin, fsin)
LAZYGEN_FLOATING_FN(cos, fcos)
LAZYGEN_FLOATING_FN(tan, ftan)
LAZYGEN_FLOATING_FN(asin, fasin)
LAZYGEN_FLOATING_FN(acos, facos)
LAZYGEN_FLOATING_FN(atan, fatan)
LAZYGEN_FLOATING_FN(sinh, fsinh)
LAZYGEN_FLOATING_FN(cosh, fcosh)
LAZYGEN_FLOATING_FN(asinh, fasinh)
LAZYGEN_FLOATING_FN(acosh, facosh)
LAZYGEN_FLOATING_FN(atanh, fatanh)
LAZYGEN_FLOATING_FN(erf, verf)
LAZYGEN_FLOATING_FN(erfc, ferfc)
LAZYGEN_FLOATING_FN(erfinv, erfinv_of)
LAZYGEN_FLOATING_FN(log1p, flog1p)
LAZYGEN_FLOATING_FN(expm1, fexpm1)
LAZYGEN_FLOATING_FN(log2, flog2)
LAZYGEN_FLOATING_FN(log10, flog10)
LAZYGEN_FLOATING_FN(exp2, fexp2)
LAZYGEN_FLOATING_FN(lgamma, flgamma)
LAZYGEN_FLOATING_FN(digamma, digamma_of)
#undef LAZYGEN_FLOATING_FN

// The next representable value after a in the direction of b (float and double: nextafter's
// dtypes), as std::nextafter.
template <class A, class B>
LAZYGEN_HD auto nextafter(A a, B b) {
  using F = detail::float_of_t<detail::common_t<A, B>>;
  return detail::fnextafter(static_cast<F>(a), static_cast<F>(b));
}

// The greatest common divisor of |a| and |b| by Euclid's algorithm (gcd(0, 0) = 0), and the least
// common multiple |a / gcd * b| (0 when either is 0), as PyTorch's integer kernels compute them.
template <class A, class B>
LAZYGEN_HD auto gcd(A a, B b) {
  using C = detail::common_t<A, B>;
  C x = a < 0 ? C(-a) : C(a), y = b < 0 ? C(-b) : C(b);
  while (x != C(0)) {
    const C rest = y % x;
    y = x;
    x = rest;
  }
  return y;
}
template <class A, class B>
LAZYGEN_HD auto lcm(A a, B b) {
  using C = detail::common_t<A, B>;
  const C g = gcd(a, b);
  if (g == C(0)) return C(0);
  const C m = C(a) / g * C(b);
  return m < 0 ? C(-m) : m;
}

// polygamma(n, x) in floating point (See detail::polygamma_of).
template <class N, class T>
LAZYGEN_HD auto polygamma(N n, T x) {
  using F = detail::float_of_t<T>;
  return detail::polygamma_of(static_cast<F>(n), static_cast<F>(x));
}

template <class T>
LAZYGEN_HD auto rsqrt(T x) {
  using F = detail::float_of_t<T>;
  return F(1) / detail::fsqrt(static_cast<F>(x));
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

// ---- Of two values, in floating point: atan2(y, x), hypot, copysign(magnitude, sign) ----
#define LAZYGEN_FLOATING_FN2(name, impl)                       \
  template <class A, class B>                                  \
  LAZYGEN_HD auto name(A a, B b) {                             \
    using F = detail::float_of_t<detail::common_t<A, B>>;      \
    return detail::impl(static_cast<F>(a), static_cast<F>(b)); \
  }
LAZYGEN_FLOATING_FN2(atan2, fatan2)
LAZYGEN_FLOATING_FN2(hypot, fhypot)
LAZYGEN_FLOATING_FN2(copysign, fcopysign)
#undef LAZYGEN_FLOATING_FN2

// ---- Rounding, in x's type (integral values are already whole) ----
// round is half to even (torch.round), in the default rounding mode.
#define LAZYGEN_ROUNDING_FN(name, impl)  \
  template <class T>                     \
  LAZYGEN_HD T name(T x) {               \
    if constexpr (detail::kIsFloat<T>) { \
      return detail::impl(x);            \
    } else {                             \
      return x;                          \
    }                                    \
  }
LAZYGEN_ROUNDING_FN(floor, ffloor)
LAZYGEN_ROUNDING_FN(ceil, fceil)
LAZYGEN_ROUNDING_FN(trunc, ftrunc)
LAZYGEN_ROUNDING_FN(round, fnearbyint)
#undef LAZYGEN_ROUNDING_FN

// The fractional part x - trunc(x), with x's sign; NaN for infinities. 0 for integral values.
template <class T>
LAZYGEN_HD T frac(T x) {
  if constexpr (detail::kIsFloat<T>) {
    return x - detail::ftrunc(x);
  } else {
    return T(0);
  }
}

// -1, 0 or 1 in x's type; 0 for NaN and for both zeros, as torch.sign; bool stays x.
template <class T>
LAZYGEN_HD T sign(T x) {
  if constexpr (static_cast<T>(-1) < static_cast<T>(0)) {
    return static_cast<T>((T(0) < x) - (x < T(0)));
  } else {
    return x;
  }
}
// torch.sgn: sign for real values (lazygen has no complex dtypes).
template <class T>
LAZYGEN_HD T sgn(T x) {
  return sign(x);
}

namespace detail {

// a and b in their common type, bool computing in int (as `a % b` would).
template <class A, class B>
using arith_t = decltype(+common_t<A, B>());

}  // namespace detail

// C's fmod: the remainder with a's sign. Integral division by zero (PyTorch raises; a kernel
// cannot) gives 0, as does the overflowing INT_MIN % -1.
template <class A, class B>
LAZYGEN_HD auto fmod(A a, B b) {
  using C = detail::arith_t<A, B>;
  const C x = static_cast<C>(a), y = static_cast<C>(b);
  if constexpr (detail::kIsFloat<C>) {
    return detail::ffmod(x, y);
  } else {
    return (y == 0 || y == C(-1)) ? C(0) : static_cast<C>(x % y);
  }
}

// Python's modulo (torch.remainder): the remainder with b's sign. Division by zero as fmod.
template <class A, class B>
LAZYGEN_HD auto remainder(A a, B b) {
  using C = detail::arith_t<A, B>;
  const C y = static_cast<C>(b);
  C m = fmod(a, b);
  if (m != C(0) && ((y < C(0)) != (m < C(0)))) m += y;
  return m;
}

// ---- Classification, as bool ----
template <class T>
LAZYGEN_HD bool isnan(T x) {
  if constexpr (detail::kIsFloat<T>) {
    return x != x;
  } else {
    return false;
  }
}
template <class T>
LAZYGEN_HD bool isfinite(T x) {
  if constexpr (detail::kIsFloat<T>) {
    return x - x == T(0);  // inf - inf and NaN - NaN are NaN
  } else {
    return true;
  }
}
template <class T>
LAZYGEN_HD bool isinf(T x) {
  return !isnan(x) && !isfinite(x);
}

// x with NaN, +inf and -inf replaced (torch.nan_to_num with every replacement given); integral
// values unchanged.
template <class T, class N, class P, class M>
LAZYGEN_HD T nan_to_num(T x, N nan, P posinf, M neginf) {
  if constexpr (detail::kIsFloat<T>) {
    if (x != x) return static_cast<T>(nan);
    if (!isfinite(x)) return x > T(0) ? static_cast<T>(posinf) : static_cast<T>(neginf);
  }
  return x;
}

// ---- Logical, as bool: any non-zero value (NaN included) is true ----
template <class T>
LAZYGEN_HD bool logical_not(T x) {
  return !static_cast<bool>(x);
}
template <class A, class B>
LAZYGEN_HD bool logical_and(A a, B b) {
  return static_cast<bool>(a) && static_cast<bool>(b);
}
template <class A, class B>
LAZYGEN_HD bool logical_or(A a, B b) {
  return static_cast<bool>(a) || static_cast<bool>(b);
}
template <class A, class B>
LAZYGEN_HD bool logical_xor(A a, B b) {
  return static_cast<bool>(a) != static_cast<bool>(b);
}

// ---- Bitwise, on bool and integral values only (the generator checks an op's dtypes) ----
namespace detail {

template <class T>
struct Unsigned;
template <>
struct Unsigned<int> {
  using type = unsigned int;
};
template <>
struct Unsigned<long> {
  using type = unsigned long;
};
template <>
struct Unsigned<long long> {
  using type = unsigned long long;
};

template <class C>
LAZYGEN_HD constexpr void check_integral() {
  static_assert(!kIsFloat<C>, "bitwise functions take bool and integral values only");
}

}  // namespace detail

template <class T>
LAZYGEN_HD T bitwise_not(T x) {
  detail::check_integral<T>();
  if constexpr (static_cast<T>(-1) < static_cast<T>(0)) {
    return static_cast<T>(~x);
  } else {
    return !x;  // bool
  }
}
#define LAZYGEN_BITWISE_FN(name, op)                               \
  template <class A, class B>                                      \
  LAZYGEN_HD auto name(A a, B b) {                                 \
    using C = detail::common_t<A, B>;                              \
    detail::check_integral<C>();                                   \
    return static_cast<C>(static_cast<C>(a) op static_cast<C>(b)); \
  }
LAZYGEN_BITWISE_FN(bitwise_and, &)
LAZYGEN_BITWISE_FN(bitwise_or, |)
LAZYGEN_BITWISE_FN(bitwise_xor, ^)
#undef LAZYGEN_BITWISE_FN

// a << b on a's bits; 0 when b is negative or not below the width (defined, unlike C++).
template <class A, class B>
LAZYGEN_HD auto bitwise_left_shift(A a, B b) {
  using C = detail::arith_t<A, B>;
  detail::check_integral<C>();
  const C y = static_cast<C>(b);
  if (y < C(0) || y >= C(8 * sizeof(C))) return C(0);
  using U = typename detail::Unsigned<C>::type;
  return static_cast<C>(static_cast<U>(static_cast<C>(a)) << y);
}
// a >> b, filling with a's sign; b negative or not below the width shifts all bits out.
template <class A, class B>
LAZYGEN_HD auto bitwise_right_shift(A a, B b) {
  using C = detail::arith_t<A, B>;
  detail::check_integral<C>();
  const C x = static_cast<C>(a), y = static_cast<C>(b);
  if (y < C(0) || y >= C(8 * sizeof(C))) return static_cast<C>(x >> (8 * sizeof(C) - 1));
  return static_cast<C>(x >> y);
}

}  // namespace lazygen::kernels
