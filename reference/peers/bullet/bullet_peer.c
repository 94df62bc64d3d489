/* bullet_peer — the Bullet engine of the peers (peer.h). Not yet translated: the variants exist
 * so that they are named, and report why they do not run. */
#include <stdio.h>
#include <string.h>

#include "peer.h"

static int bullet_built(void) {
    return 0;
}
static const char* bullet_absent(void) {
    return "this ccb was built without Bullet (install libbullet-dev and rebuild)";
}
static const char* bullet_version(void) {
    return NULL;
}
static int bullet_open(const ccb_model* m, double dt, const peer_options* o, void** out, char* msg,
                       size_t n) {
    (void)m, (void)dt, (void)o;
    *out = NULL;
    snprintf(msg, n, "%s", bullet_absent());
    return -1;
}
/* never called: no scene opens */
static void bullet_state(const void* scene, double* q, double* v) {
    (void)scene, (void)q, (void)v;
}
static int bullet_step(void* scene, peer_step_info* info, int forces, char* msg, size_t n) {
    (void)scene, (void)forces;
    memset(info, 0, sizeof *info);
    snprintf(msg, n, "%s", bullet_absent());
    return -1;
}
static double bullet_time(const void* scene) {
    (void)scene;
    return 0.0;
}
static void bullet_close(void* scene) {
    (void)scene;
}
static void bullet_describe(double dt, const peer_options* o, peer_line_fn line, void* user) {
    (void)dt, (void)o;
    line("peer", "Bullet 3.24", user);
}

const peer_engine peer_engine_bullet = {
    "Bullet",     "libbullet-dev", bullet_built, bullet_absent, bullet_version, bullet_open,
    bullet_state, bullet_step,     bullet_time,  bullet_close,  bullet_describe};
