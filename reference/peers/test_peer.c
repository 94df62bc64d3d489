/* unit.peer: the peers' translations of a ccb model (reference/peers/peer.h), for every engine of
 * the build (skipped, exit 77, without any).
 *
 * A free body with a general orientation and angular velocity, and a planar body with a turned
 * initial pose, both in free flight above a floor: (1) the state of the opened scene, mapped back
 * to ccb's coordinates, is ccb's initial state; (2) one step of the engine (semi-implicit Euler,
 * rotation by the exponential map of the new angular velocity: MuJoCo's mj_step, ODE's finite
 * rotation mode, Bullet's integrateTransform) equals one step of ccb, which integrates the same
 * way (spec: formulation-convex §1.1), to round-off. Either check fails if a frame (body vs world
 * angular velocity, quaternion order and sign, slide axes, hinge sign, planar factors) is mapped
 * wrongly. The inertia is isotropic: with a gyroscopic torque the two differ at O(dt^2), since
 * MuJoCo keeps the angular velocity in the body frame while the body turns (measured 3.8e-10 in
 * a quaternion at dt = 1e-3 with inertia diag(0.1, 0.2, 0.3)).
 * The same, with an applied load on each body that depends on time and state (ccb_force_fn): 20
 * steps of each engine equal 20 of ccb, which evaluates the load at each step's start (explicit,
 * formulation-convex §1.1). This fails if the load is evaluated elsewhere, kept from one step to
 * the next (Bullet and ODE accumulate forces until cleared), applied away from the centre of mass
 * or in the wrong frame, or if its components out of a planar body's plane leak in. */
#include <math.h>

#include "../../lib/tests/test.h"
#include "ccb/ccb.h"
#include "peer.h"
#include "peer_dl.h"

#include <pthread.h>
#include <string.h>

/* both are the same recursion in double precision: round-off of O(1) values */
#define TOL_ROUNDOFF 1e-12
/* the joint on the prescribed body: its parent moves on its exact path (X(t + dt) - X(t) =
 * dt v(t + dt) - a dt^2 / 2), the joint's body by semi-implicit Euler, so q differs from ccb's by
 * (a . axis) dt^2 / 2 = 3e-11 a step, 6e-10 over 20; MuJoCo's prescribed body weighs 1e6 kg, so
 * the joint's reaction moves it by m/M = 5e-8 of the body's change of velocity (8e-3 m/s over the
 * 20 steps): 4e-10 in v. Without the pseudo-force of the parent's acceleration v would be off by
 * 20 dt (a . axis) = 1.2e-4. */
#define TOL_JOINT_ON_PRESCRIBED 1e-9

/* A load that depends on t, the pose and the twist, with components in every direction. */
static void load(double t, const ccb_pose* X, const ccb_twist* V, void* user, ccb_vec3* f,
                 ccb_vec3* tau) {
    const double s = *(const double*)user;
    *f = ccb_v3(s * (1.0 + 10.0 * t), -0.5 * s, s * (2.0 - V->v.z) + X->p.x);
    *tau = ccb_v3(0.3 * s, -0.2 * s + 0.1 * V->w.y, 0.1 * s - X->p.z);
}
static const double k_load_free = 3.0, k_load_planar = -2.0;

static ccb_model* scene(int loaded) {
    ccb_model* m = NULL;
    CHECK(ccb_model_create(&m) == CCB_OK, "model");
    ccb_body_def ground = ccb_body_def_default();
    ground.name = "ground";
    ground.mobilizer = CCB_MOBILIZER_FIXED;
    ground.pose = ccb_pose_translation(ccb_v3(0, 0, 0));
    int gb, fb, pb;
    CHECK(ccb_model_add_body(m, &ground, &gb) == CCB_OK, "ground");
    ccb_shape_def floor = ccb_shape_def_default();
    floor.name = "floor";
    floor.material = (ccb_material){INFINITY, 0, 0, 0.5, 0.0};
    CHECK(ccb_model_add_shape(m, gb, &floor, NULL) == CCB_OK, "floor");

    ccb_body_def free = ccb_body_def_default();
    free.name = "block";
    free.mobilizer = CCB_MOBILIZER_FREE;
    free.mass = 2.0;
    free.inertia = ccb_m3_identity();
    free.inertia.m[0] = free.inertia.m[4] = free.inertia.m[8] = 0.2;
    const double q[4] = {0.8, 0.2, -0.4, 0.4};
    const double nq = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    const double qn[4] = {q[0] / nq, q[1] / nq, q[2] / nq, q[3] / nq};
    free.pose.p = ccb_v3(0.1, -0.2, 2.0);
    free.pose.R = ccb_m3_from_quat(qn);
    free.twist.w = ccb_v3(1.3, -0.7, 2.1);
    free.twist.v = ccb_v3(0.3, -0.2, 0.5);
    if (loaded) {
        free.force = load;
        free.force_user = (void*)&k_load_free;
    }
    CHECK(ccb_model_add_body(m, &free, &fb) == CCB_OK, "block");
    ccb_shape_def ball = ccb_shape_def_default();
    ball.name = "block_ball";
    ball.type = CCB_SHAPE_SPHERE;
    ball.radius = 0.1;
    ball.material = (ccb_material){1e6, 0, 0, 0.5, 0.0};
    CHECK(ccb_model_add_shape(m, fb, &ball, NULL) == CCB_OK, "block ball");

    ccb_body_def planar = ccb_body_def_default();
    planar.name = "disc";
    planar.pose = ccb_pose_planar(1.0, 3.0, 0.3);
    planar.twist = ccb_twist_planar(-0.4, 0.9, -1.7);
    planar.damping[0] = 0.0;
    if (loaded) {
        planar.force = load;
        planar.force_user = (void*)&k_load_planar;
    }
    CHECK(ccb_model_add_body(m, &planar, &pb) == CCB_OK, "disc");
    ball.name = "disc_ball";
    CHECK(ccb_model_add_shape(m, pb, &ball, NULL) == CCB_OK, "disc ball");
    CHECK(ccb_model_finalize(m) == CCB_OK, "finalize");
    return m;
}

/* Two bodies on prismatic joints, without shapes: one on the world along a tilted axis, one on a
 * body of prescribed motion with a constant acceleration that has a component along the joint's
 * axis (the joint then carries the body along it: a pseudo-force the engines must apply). Both
 * with an actuation that depends on t, q and v and a spring; no damping (ccb's is implicit, ODE's
 * and Bullet's explicit: they differ at O(dt^2 c^2 / m^2) per step). */
static double joint_push(double t, double q, double v, void* user) {
    (void)user;
    return 2.0 + t - 3.0 * q + 0.5 * v;
}
static void hand_motion(double t, void* user, ccb_pose* X, ccb_twist* V) {
    (void)user;
    X->R = ccb_m3_identity();
    X->p = ccb_v3(0.3 * t * t, 0.2 * t * t + 1.0, 0.5 * t * t);
    V->w = ccb_v3(0, 0, 0);
    V->v = ccb_v3(0.6 * t, 0.4 * t, 1.0 * t);
}
static void hand_accel(double t, void* user, ccb_vec3* alpha, ccb_vec3* a) {
    (void)t, (void)user;
    *alpha = ccb_v3(0, 0, 0);
    *a = ccb_v3(0.6, 0.4, 1.0);
}

static ccb_model* joint_scene(void) {
    ccb_model* m = NULL;
    CHECK(ccb_model_create(&m) == CCB_OK, "model");
    int ih, i1, i2;
    ccb_body_def s1 = ccb_body_def_default();
    s1.name = "slider";
    s1.mobilizer = CCB_MOBILIZER_PRISMATIC;
    s1.mass = 0.5;
    s1.inertia = ccb_m3_identity();
    s1.joint.parent = -1;
    s1.joint.X_PF = ccb_pose_translation(ccb_v3(0.2, -0.1, 0.4));
    s1.joint.X_BM = ccb_pose_translation(ccb_v3(0.05, 0, 0));
    s1.joint.axis = ccb_v3(0.6, 0, 0.8);
    s1.joint.q0 = 0.3;
    s1.joint.v0 = -0.2;
    s1.joint.stiffness = 4.0;
    s1.joint.q_rest = 0.1;
    s1.joint.actuation = joint_push;
    CHECK(ccb_model_add_body(m, &s1, &i1) == CCB_OK, "slider");
    ccb_body_def hand = ccb_body_def_default();
    hand.name = "hand";
    hand.mobilizer = CCB_MOBILIZER_PRESCRIBED;
    hand.motion = hand_motion;
    hand.accel = hand_accel;
    CHECK(ccb_model_add_body(m, &hand, &ih) == CCB_OK, "hand");
    ccb_body_def s2 = s1;
    s2.name = "finger";
    s2.mass = 0.05;
    s2.joint.parent = ih;
    s2.joint.X_PF = ccb_pose_translation(ccb_v3(0.1, 0, 0));
    s2.joint.X_BM = ccb_pose_translation(ccb_v3(0, 0, 0));
    s2.joint.axis = ccb_v3(-1, 0, 0);
    s2.joint.q0 = 0.01;
    s2.joint.v0 = 0.1;
    CHECK(ccb_model_add_body(m, &s2, &i2) == CCB_OK, "finger");
    CHECK(ccb_model_finalize(m) == CCB_OK, "finalize");
    return m;
}

/* (4) ccb's pair rule on a joint: a body on a prismatic joint whose sphere overlaps a free body's
 * touches it, and does not once the pair is filtered (MuJoCo: exclusions, its filter of a parent
 * and its child off; ODE: the near callback; Bullet: the overlap filter, and the slider does not
 * disable the pair). */
static void test_joint_pairs(const peer_engine* e) {
    for (int filtered = 0; filtered < 2; ++filtered) {
        ccb_model* m = NULL;
        CHECK(ccb_model_create(&m) == CCB_OK, "model");
        ccb_model_set_gravity(m, ccb_v3(0, 0, 0));
        int is, ib;
        ccb_body_def s1 = ccb_body_def_default();
        s1.name = "slider";
        s1.mobilizer = CCB_MOBILIZER_PRISMATIC;
        s1.mass = 0.5;
        s1.inertia = ccb_m3_identity();
        s1.joint.parent = -1;
        s1.joint.axis = ccb_v3(1, 0, 0);
        CHECK(ccb_model_add_body(m, &s1, &is) == CCB_OK, "slider");
        ccb_body_def ball = ccb_body_def_default();
        ball.name = "ball";
        ball.mobilizer = CCB_MOBILIZER_FREE;
        ball.inertia = ccb_m3_identity();
        ball.pose = ccb_pose_translation(ccb_v3(0.15, 0, 0));
        CHECK(ccb_model_add_body(m, &ball, &ib) == CCB_OK, "ball");
        ccb_shape_def sp = ccb_shape_def_default();
        sp.type = CCB_SHAPE_SPHERE;
        sp.radius = 0.1;
        sp.material = (ccb_material){1e4, 0, 0, 0.5, 0.0};
        sp.name = "a";
        CHECK(ccb_model_add_shape(m, is, &sp, NULL) == CCB_OK, "a");
        sp.name = "b";
        CHECK(ccb_model_add_shape(m, ib, &sp, NULL) == CCB_OK, "b");
        if (filtered) {
            CHECK(ccb_model_filter_pair(m, is, ib) == CCB_OK, "filter");
        }
        CHECK(ccb_model_finalize(m) == CCB_OK, "finalize");
        const peer_options o = {PEER_SAME_GEOMETRY, PEER_STIFF_TIMECONST, PEER_SOLVER_DEFAULT};
        void* p = NULL;
        char msg[512] = "";
        CHECK(e->open(m, 1e-3, &o, &p, msg, sizeof msg) == 0, "%s: open: %s", e->name, msg);
        peer_step_info info;
        CHECK(e->step(p, &info, 1, msg, sizeof msg) == 0, "%s: step: %s", e->name, msg);
        CHECK(filtered ? info.ncon == 0 : info.ncon > 0,
              "%s: overlapping spheres of a jointed and a free body, pair %s: %d contacts", e->name,
              filtered ? "filtered" : "not filtered", info.ncon);
        e->close(p);
        ccb_model_destroy(m);
    }
}

/* peer_dl.h: a library that does not open, and one without a function the peer names, are
 * reported with the reason, every time they are asked (the answer of the first attempt) */
static double (*dl_cos)(double);
static void (*dl_none)(void);
static void test_dl(void) {
    static const peer_dl_sym missing_syms[] = {{"cos", &dl_cos}, {NULL, NULL}};
    static peer_dl missing = PEER_DL_INIT("libccb-no-such-library.so.0", missing_syms);
    char msg[512] = "";
    for (int k = 0; k < 2; ++k) {
        CHECK(peer_dl_open(&missing, msg, sizeof msg) == -1, "a missing library fails");
        CHECK(strstr(msg, "cannot open libccb-no-such-library.so.0") != NULL, "its reason: %s",
              msg);
    }
    static const peer_dl_sym nofn_syms[] = {
        {"cos", &dl_cos}, {"ccb_no_such_function", &dl_none}, {NULL, NULL}};
    static peer_dl nofn = PEER_DL_INIT("libm.so.6", nofn_syms);
    CHECK(peer_dl_open(&nofn, msg, sizeof msg) == -1, "a missing function fails");
    CHECK(strstr(msg, "libm.so.6 has no function ccb_no_such_function") != NULL, "its reason: %s",
          msg);
    static const peer_dl_sym m_syms[] = {{"cos", &dl_cos}, {NULL, NULL}};
    static peer_dl libm = PEER_DL_INIT("libm.so.6", m_syms);
    CHECK(peer_dl_open(&libm, NULL, 0) == 0 && dl_cos(0.0) == 1.0, "cos from libm.so.6");
}

/* "ENGINE: what" for a check's basis */
static const char* basis(const peer_engine* e, const char* what) {
    static char b[200];
    snprintf(b, sizeof b, "%s: %s", e->name, what);
    return b;
}

/* (1) and (2) for one engine: kind 0 the free-flight scene, 1 with loads, 2 the joints; with
 * loads and joints (2) over 20 steps */
static void test_engine(const peer_engine* e, int kind) {
    const int loaded = kind == 1;
    ccb_model* m = kind == 2 ? joint_scene() : scene(loaded);
    const int steps = kind > 0 ? 20 : 1;
    const int nq = ccb_model_nq(m), nv = ccb_model_nv(m);
    double q0[16], v0[16], q[16], v[16];
    CHECK(nq <= 16 && nv <= 16, "state size");
    CHECK(ccb_model_initial_state(m, q0, v0) == CCB_OK, "initial state");
    const double dt = 1e-5; /* (|w| dt)^3 = 2e-14: below TOL_ROUNDOFF */
    const peer_options o = {PEER_SAME_GEOMETRY, PEER_STIFF_TIMECONST, PEER_SOLVER_DEFAULT};
    void* p = NULL;
    char msg[512] = "";
    if (e->open(m, dt, &o, &p, msg, sizeof msg) != 0) {
        CHECK(0, "%s: open: %s", e->name, msg);
        ccb_model_destroy(m);
        return;
    }
    e->state(p, q, v);
    for (int i = 0; i < nq; ++i) {
        CHECK_ABS(q[i], q0[i], TOL_ROUNDOFF, basis(e, "initial q: the mapping round trip"));
    }
    for (int i = 0; i < nv; ++i) {
        CHECK_ABS(v[i], v0[i], TOL_ROUNDOFF, basis(e, "initial v: the mapping round trip"));
    }
    peer_step_info info;
    for (int k = 0; k < steps; ++k) {
        CHECK(e->step(p, &info, 1, msg, sizeof msg) == 0, "%s: step: %s", e->name, msg);
    }
    CHECK(info.ncon == 0, "%s: free flight: no contact (%d)", e->name, info.ncon);
    CHECK(info.stop == -1 && info.ls_evals == 0 && info.changes == 0,
          "%s: free flight: no stopping test, line search or state change (stop %d, %d "
          "evaluations, %d changes)",
          e->name, info.stop, info.ls_evals, info.changes);
    e->state(p, q, v);

    ccb_sim_params sp = ccb_sim_params_default();
    sp.dt = dt;
    ccb_sim* sim = NULL;
    CHECK(ccb_sim_create(m, &sp, &sim, msg, sizeof msg) == CCB_OK, "sim: %s", msg);
    for (int k = 0; k < steps; ++k) {
        CHECK(ccb_sim_step(sim) == CCB_OK, "ccb step");
    }
    const double *qs = ccb_sim_q(sim), *vs = ccb_sim_v(sim);
    static const char* const k_what[3][2] = {
        {"q after one free-flight step, against ccb", "v after one free-flight step, against ccb"},
        {"q after 20 free-flight steps under applied loads, against ccb",
         "v after 20 free-flight steps under applied loads, against ccb"},
        {"q of the prismatic joints after 20 steps, against ccb",
         "v of the prismatic joints after 20 steps, against ccb"}};
    const char* what_q = k_what[kind][0];
    const char* what_v = k_what[kind][1];
    for (int i = 0; i < nq; ++i) { /* the joint scene: coordinate 1 is the prescribed body's */
        CHECK_ABS(q[i], qs[i], kind == 2 && i == 1 ? TOL_JOINT_ON_PRESCRIBED : TOL_ROUNDOFF,
                  basis(e, what_q));
    }
    for (int i = 0; i < nv; ++i) {
        CHECK_ABS(v[i], vs[i], kind == 2 && i == 1 ? TOL_JOINT_ON_PRESCRIBED : TOL_ROUNDOFF,
                  basis(e, what_v));
    }
    ccb_sim_destroy(sim);
    e->close(p);
    ccb_model_destroy(m);
}

/* (3) Two scenes stepped at once in two threads give each the data of a scene stepped alone:
 * the engine keeps no state between scenes (ODE's threading and random generator are global:
 * two ODE worlds stepping at once failed an internal assertion in about one study in five). The
 * scene: the two bodies dropped onto the floor at dt = 1 ms for 0.6 s (contacts, impacts). */
typedef struct drop_run {
    const peer_engine* e;
    peer_solver solver;
    double q[16];
    int rc;
} drop_run;

static void* drop(void* arg) {
    drop_run* r = arg;
    ccb_model* m = scene(0);
    const peer_options o = {PEER_SAME_GEOMETRY, PEER_STIFF_TIMECONST, r->solver};
    void* s = NULL;
    char msg[256];
    double v[16];
    r->rc = r->e->open(m, 1e-3, &o, &s, msg, sizeof msg);
    for (int k = 0; k < 600 && r->rc == 0; ++k) {
        peer_step_info info;
        r->rc = r->e->step(s, &info, 1, msg, sizeof msg);
    }
    if (r->rc == 0) {
        r->e->state(s, r->q, v);
    }
    r->e->close(s);
    ccb_model_destroy(m);
    return NULL;
}

static void test_threads(const peer_engine* e, peer_solver solver) {
    drop_run alone = {e, solver, {0}, -1}, two[2] = {{e, solver, {0}, -1}, {e, solver, {0}, -1}};
    drop(&alone);
    for (int round = 0; round < 4; ++round) { /* a race shows in some rounds only */
        pthread_t t[2];
        for (int i = 0; i < 2; ++i) {
            CHECK(pthread_create(&t[i], NULL, drop, &two[i]) == 0, "thread");
        }
        for (int i = 0; i < 2; ++i) {
            pthread_join(t[i], NULL);
        }
        CHECK(alone.rc == 0 && two[0].rc == 0 && two[1].rc == 0, "%s: the drops ran", e->name);
        CHECK(memcmp(alone.q, two[0].q, sizeof alone.q) == 0 &&
                  memcmp(alone.q, two[1].q, sizeof alone.q) == 0,
              "%s (solver %d): two scenes at once end where one alone does, bit for bit", e->name,
              (int)solver);
    }
}

int main(void) {
    g_test_name = "unit.peer";
    test_dl();
    if (g_test_failed > 0) {
        return TEST_SUMMARY();
    }
    const peer_engine* engines[] = {&peer_engine_mujoco, &peer_engine_ode, &peer_engine_bullet};
    int tested = 0;
    for (int e = 0; e < 3; ++e) {
        if (engines[e]->absent() == NULL) {
            test_engine(engines[e], 0);
            test_engine(engines[e], 1);
            test_engine(engines[e], 2);
            test_joint_pairs(engines[e]);
            test_threads(engines[e], PEER_SOLVER_DEFAULT);
            test_threads(engines[e], e == 0   ? PEER_SOLVER_PGS
                                     : e == 1 ? PEER_SOLVER_QUICKSTEP
                                              : PEER_SOLVER_DANTZIG);
            tested++;
        } else {
            printf("unit.peer: %s not tested: %s\n", engines[e]->name, engines[e]->absent());
        }
    }
    if (tested == 0) {
        printf("unit.peer: skipped, this build has no peer engine (install libmujoco-dev, "
               "libode-dev or libbullet-dev, and build with CCB_OPTIONAL=ON)\n");
        return 77; /* CTest: skipped */
    }
    return TEST_SUMMARY();
}
