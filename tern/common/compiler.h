#pragma once
// Compiler hints for hot paths, with no effect on compilers that lack them.
//
// TERN_ALWAYS_INLINE: inline this small function at every call site; the
// compiler's heuristics leave many small kernels as calls, which costs more
// than their arithmetic.
// TERN_FLATTEN: inline every call inside this function's body, recursively,
// where possible. For drivers that call a user's model a few times per
// invocation (an RK4 step calls the dynamics four times): inlined, the stages'
// independent work overlaps and values stay in registers.
// TERN_NOINLINE: keep this function a call (with TERN_FLATTEN: for one step
// of an algorithm, so that its speed does not hang on the inliner's budget
// for the large function that calls it).
//
// Defining TERN_NO_FLATTEN turns TERN_FLATTEN off (the sanitizer build does,
// to save compile time).
#if defined(__GNUC__)
#define TERN_ALWAYS_INLINE inline __attribute__((always_inline))
#if defined(TERN_NO_FLATTEN)
#define TERN_FLATTEN
#else
#define TERN_FLATTEN __attribute__((flatten))
#endif
#define TERN_NOINLINE __attribute__((noinline))
#else
#define TERN_ALWAYS_INLINE inline
#define TERN_FLATTEN
#define TERN_NOINLINE
#endif
