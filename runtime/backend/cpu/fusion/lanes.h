// Lanes<T>: one 32-byte vector of float or double values that the generated scalar functors
// (lazygen/generated/pointwise_ops.h) accept as their T, so that a register chain (See Note
// [Register chains] in chain_kernels.h) evaluates a `pointwise:` expression on whole vectors.
//
// Note [Lane semantics]
// Every operation computes, in each lane, exactly what the scalar functor computes for that
// lane's values, so a chain's results equal the per-op tile kernels' and the eager kernels' bit
// for bit. That holds for the expressions the generator marks chainable (chainable_expression
// in generator/dest/tile_kernels.cpp): the arithmetic operators, unary minus, comparisons,
// integer literals (converted to T as `x + 1` would convert them), and calls to max, min, where
// and abs. Excluded: floating literals, because the scalar code computes `x * 0.5` in double
// for float x and rounds once; calls that leave the vector (exp, log, tanh, sigmoid, pow),
// because a call inside a chain would spill its registers; and sqrt and rsqrt, because GCC,
// allowed to speculate them (no errno, no traps), computes a chained sqrt before the dispatch
// switch, for every op of every chain.
// Each lane operation is the IEEE operation the scalar code does (no contraction: the chain
// kernels' avx2 variant has no fma, See Note [Tile kernel clones]); comparisons give
// LaneMask<T>, all bits set where true, which where() selects with and to_lanes turns into 1 or
// 0, as static_cast<T>(bool) would.
// One freedom every path has: where both operands of + or * are NaN, which NaN (sign,
// payload) the result carries depends on the operand order the compiler picks, and GCC
// commutes these operations (eager kernels and the per-op tile kernels differ there too).
//
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "lazygen/kernels/pointwise_math.h"

namespace lazygen::cpu::fusion {

inline constexpr int kLaneBytes = 32;

template <class T>
struct LaneTypes;
template <>
struct LaneTypes<float> {
  typedef float Value __attribute__((vector_size(kLaneBytes)));
  typedef int32_t Mask __attribute__((vector_size(kLaneBytes)));
};
template <>
struct LaneTypes<double> {
  typedef double Value __attribute__((vector_size(kLaneBytes)));
  typedef int64_t Mask __attribute__((vector_size(kLaneBytes)));
};

template <class T>
struct Lanes {
  static_assert(std::is_floating_point_v<T>, "register chains compute in float or double");
  static constexpr int kSize = kLaneBytes / static_cast<int>(sizeof(T));
  typename LaneTypes<T>::Value v;

  static Lanes splat(T x) { return splat_of(x, std::make_index_sequence<kSize>{}); }
  static Lanes load(const T* p) {
    Lanes r;
    std::memcpy(&r.v, p, kLaneBytes);
    return r;
  }
  void store(T* p) const { std::memcpy(p, &v, kLaneBytes); }

 private:
  template <size_t... I>
  static Lanes splat_of(T x, std::index_sequence<I...>) {
    return {typename LaneTypes<T>::Value{(static_cast<void>(I), x)...}};
  }
};

// The lanes where a comparison held: all bits set, else 0.
template <class T>
struct LaneMask {
  typename LaneTypes<T>::Mask m;
};

template <class A>
inline constexpr bool kIsLanes = false;
template <class T>
inline constexpr bool kIsLanes<Lanes<T>> = true;
template <class A>
inline constexpr bool kIsMask = false;
template <class T>
inline constexpr bool kIsMask<LaneMask<T>> = true;

// An operand of a lane operation: Lanes, or an arithmetic value (a literal) converted to T.
template <class A>
concept LaneOperand = kIsLanes<A> || std::is_arithmetic_v<A>;
template <class A, class B>
concept LanePair = LaneOperand<A> && LaneOperand<B> &&(kIsLanes<A> || kIsLanes<B>);

namespace detail {

template <class A, class B>
struct LaneOf {
  using type = A;
};
template <class A, class T>
requires(!kIsLanes<A>) struct LaneOf<A, Lanes<T>> {
  using type = Lanes<T>;
};
// The Lanes type of a pair of operands (one of them is Lanes).
template <class A, class B>
using lane_of_t = typename LaneOf<A, B>::type;

template <class L, class A>
L widen(A a) {
  if constexpr (kIsLanes<A>) {
    return a;
  } else {
    return L::splat(static_cast<decltype(L{}.v[0])>(a));
  }
}

}  // namespace detail

#define LAZYGEN_LANE_ARITHMETIC(op)                           \
  template <class A, class B>                                 \
  requires LanePair<A, B>                                     \
  auto operator op(A a, B b) {                                \
    using L = detail::lane_of_t<A, B>;                        \
    return L{detail::widen<L>(a).v op detail::widen<L>(b).v}; \
  }
LAZYGEN_LANE_ARITHMETIC(+)
LAZYGEN_LANE_ARITHMETIC(-)
LAZYGEN_LANE_ARITHMETIC(*)
LAZYGEN_LANE_ARITHMETIC(/)
#undef LAZYGEN_LANE_ARITHMETIC

#define LAZYGEN_LANE_COMPARISON(op)                           \
  template <class A, class B>                                 \
  requires LanePair<A, B>                                     \
  auto operator op(A a, B b) {                                \
    using L = detail::lane_of_t<A, B>;                        \
    return LaneMask<std::remove_cvref_t<decltype(L{}.v[0])>>{ \
        detail::widen<L>(a).v op detail::widen<L>(b).v};      \
  }
LAZYGEN_LANE_COMPARISON(<)
LAZYGEN_LANE_COMPARISON(<=)
LAZYGEN_LANE_COMPARISON(>)
LAZYGEN_LANE_COMPARISON(>=)
LAZYGEN_LANE_COMPARISON(==)
LAZYGEN_LANE_COMPARISON(!=)
#undef LAZYGEN_LANE_COMPARISON

template <class T>
Lanes<T> operator-(Lanes<T> a) {
  return {-a.v};
}

// The value of a functor's result as Lanes<T>: masks become 1 or 0, literals are splat.
template <class T, class R>
Lanes<T> to_lanes(R r) {
  if constexpr (kIsLanes<R>) {
    static_assert(std::is_same_v<R, Lanes<T>>, "a chained expression changed its type");
    return r;
  } else if constexpr (kIsMask<R>) {
    return {r.m ? Lanes<T>::splat(1).v : Lanes<T>::splat(0).v};
  } else {
    return Lanes<T>::splat(static_cast<T>(r));
  }
}

// The following overload the scalar math of pointwise_math.h (same names, found by
// argument-dependent lookup; constrained, so preferred to its unconstrained templates).

template <class A, class B>
requires LanePair<A, B>
auto max(A a, B b) {
  using L = detail::lane_of_t<A, B>;
  const auto x = detail::widen<L>(a).v, y = detail::widen<L>(b).v;
  return L{(x != x) ? x : ((y != y) ? y : (x > y ? x : y))};
}

template <class A, class B>
requires LanePair<A, B>
auto min(A a, B b) {
  using L = detail::lane_of_t<A, B>;
  const auto x = detail::widen<L>(a).v, y = detail::widen<L>(b).v;
  return L{(x != x) ? x : ((y != y) ? y : (x < y ? x : y))};
}

// `c ? a : b` per lane, c a comparison's mask.
template <class T, class A, class B>
requires LaneOperand<A> && LaneOperand<B> Lanes<T> where(LaneMask<T> c, A a, B b) {
  return {c.m ? detail::widen<Lanes<T>>(a).v : detail::widen<Lanes<T>>(b).v};
}
// `c ? a : b` per lane, c a value tested for non-zero (NaN is true, as in bool(c)).
template <class T, class A, class B>
requires LaneOperand<A> && LaneOperand<B> Lanes<T> where(Lanes<T> c, A a, B b) {
  return where(c != 0, a, b);
}

// |a|: the sign bit cleared, as fabs does (also for -0.0 and NaN).
template <class T>
Lanes<T> abs(Lanes<T> a) {
  using Mask = typename LaneTypes<T>::Mask;
  Mask bits;
  std::memcpy(&bits, &a.v, kLaneBytes);
  bits &= Mask{} + std::numeric_limits<std::remove_cvref_t<decltype(bits[0])>>::max();
  std::memcpy(&a.v, &bits, kLaneBytes);
  return a;
}

}  // namespace lazygen::cpu::fusion
