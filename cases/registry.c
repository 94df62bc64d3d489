/* registry: the list of ccb's cases (cases/registry.h). */
#include <string.h>

#include "registry.h"

extern const case_desc case_conveyor;
extern const case_desc case_sphere;
extern const case_desc case_rod;
extern const case_desc case_box;
extern const case_desc case_clutter;
extern const case_desc case_coin;
extern const case_desc case_gripper;
extern const case_desc case_grasp;
extern const case_desc case_spatula;
extern const case_desc case_push;
extern const case_desc case_aniso;
extern const case_desc case_pancake;
extern const case_desc case_hand;

static const case_desc* const g_cases[] = {
    &case_conveyor, &case_sphere,  &case_rod,   &case_box,     &case_clutter,
    &case_coin,     &case_gripper, &case_grasp, &case_spatula, &case_push,
    &case_aniso,    &case_pancake, &case_hand};

int case_count(void) {
    return (int)(sizeof g_cases / sizeof g_cases[0]);
}

const case_desc* case_get(int i) {
    return (i >= 0 && i < case_count()) ? g_cases[i] : NULL;
}

const case_desc* case_find(const char* name) {
    for (int i = 0; i < case_count(); ++i) {
        if (strcmp(g_cases[i]->name, name) == 0) {
            return g_cases[i];
        }
    }
    return NULL;
}
