#pragma once
// Compiler switches shared by every format's hot paths.

/// Forces inlining where a call would cost more than the code it runs
/// (varints, small copies); plain inline elsewhere.
#if defined(__GNUC__) || defined(__clang__)
#define REFWIRE_ALWAYS_INLINE [[gnu::always_inline]] inline
#else
#define REFWIRE_ALWAYS_INLINE inline
#endif
