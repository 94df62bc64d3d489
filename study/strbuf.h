/* study/strbuf.h — growable text for tables and reports (implemented in study/util.c). The
 * lowest header of the suite: it includes nothing of it (docs/architecture.md §2). */
#ifndef CCB_STRBUF_H
#define CCB_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

/* Zero-initialize; free(buf.s) when done. On allocation failure the text is truncated and
 * `failed` is set. */
typedef struct strbuf {
    char* s;
    size_t n, cap;
    int failed;
} strbuf;
void strbuf_printf(strbuf* b, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vprintf(strbuf* b, const char* fmt, va_list ap);

#endif
