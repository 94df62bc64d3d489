/* study/log.c — the one writer of the suite's diagnostics (log.h). */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

/* One fprintf per line: stdio locks the stream for the call, so lines of threads do not mix. */
void study_vlog(const char* fmt, va_list ap) {
    char text[2048];
    vsnprintf(text, sizeof text, fmt, ap);
    fprintf(stderr, "ccb: %s\n", text);
}

void study_log(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    study_vlog(fmt, ap);
    va_end(ap);
}
