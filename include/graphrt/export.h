// GRAPHRT_EXPORT marks what libgraphrt exports. The library is built with -fvisibility=hidden,
// so a class or function declared in include/graphrt/ without it is invisible to programs that
// link the installed library.
#ifndef GRAPHRT_EXPORT_H_
#define GRAPHRT_EXPORT_H_

// The C++11 spelling of __attribute__((visibility("default"))), so that it may follow another
// attribute: class [[nodiscard]] GRAPHRT_EXPORT Status.
#if defined(__GNUC__) || defined(__clang__)
#define GRAPHRT_EXPORT [[gnu::visibility("default")]]
#else
#define GRAPHRT_EXPORT
#endif

#endif  // GRAPHRT_EXPORT_H_
