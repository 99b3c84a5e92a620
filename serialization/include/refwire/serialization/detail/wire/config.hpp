#pragma once
// Compiler switches shared by every format's hot paths.

/// Forces inlining where a call would cost more than the code it runs
/// (varints, small copies); plain inline elsewhere.
#if defined(__GNUC__) || defined(__clang__)
#define REFWIRE_ALWAYS_INLINE [[gnu::always_inline]] inline
#else
#define REFWIRE_ALWAYS_INLINE inline
#endif

/// The same for a lambda, after its parameter list (`[&]() REFWIRE_ALWAYS_INLINE_LAMBDA { ... }`):
/// a body handed to a helper such as encode_within, whose captured cursor
/// must stay in a register rather than go through memory around a call.
#if defined(__GNUC__) || defined(__clang__)
#define REFWIRE_ALWAYS_INLINE_LAMBDA __attribute__((always_inline))
#else
#define REFWIRE_ALWAYS_INLINE_LAMBDA
#endif
