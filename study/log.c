/* study/log.c — the one writer of the suite's diagnostics (log.h). */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

/* One fprintf per line: stdio locks the stream for the call, so lines of threads do not mix. */
void study_log(const char* fmt, ...) {
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "ccb: %s\n", text);
}
