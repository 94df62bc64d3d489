/* cases/registry.h — the list of ccb's cases (registry.c). The command line reads it and hands
 * a case's descriptor to the engine; the engine itself knows no case (docs/architecture.md §2). */
#ifndef CCB_REGISTRY_H
#define CCB_REGISTRY_H

#include "case.h"

int case_count(void);
/* Case i in the order of `ccb list`, or NULL out of range. */
const case_desc* case_get(int i);
/* The case named name, or NULL. */
const case_desc* case_find(const char* name);

#endif
