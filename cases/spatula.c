/* Case SPATULA — slip control of a spatula held by two compliant bubbles (spec: cases.md §13;
 * PFC paper §V-C, Fig. 10).
 *
 * Two soft bubbles (compliant ellipsoids, E = 1e5 Pa, on prismatic fingers anchored to the world)
 * squeeze the handle of a rigid spatula held horizontally. Gravity pulls the spatula's centre of
 * mass, d = 19 mm beyond the grasp, into a torque m g d about the grasp axis; only the torsional
 * friction of the two contact patches resists it, and that grows with the patches' size, hence
 * with the grasp force. The force follows a square wave (6 s period, 75 % duty cycle) between a
 * level whose torsional capacity holds the spatula and one whose capacity does not: held in the
 * high phase, the spatula rotates in the low one until gravity's torque m g d cos(theta) falls to
 * the capacity, and is held again. Contact is general hydroelastic (formulation-tamsi-hydro §F.2:
 * compliant mesh against a rigid triangle mesh), one point contact per polygon.
 *
 * Studies:
 *   slip   12 s (two periods) with TAMSI and the convex approximations: force command, angle,
 *          angular velocity and patch area over time (PFC Fig. 10); the quasi-static torsional
 *          capacity of one patch at the two force levels (how the levels were chosen); gates
 *          SPAT-1 (held in every high phase), SPAT-2 (rotates in the first low phase, not
 *          dropped, angular velocity bounded), SPAT-3 (the rotation stops near the quasi-static
 *          angle), SPAT-4 (the patch is elongated along the handle). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "study.h"

enum {
    P_F_HIGH,
    P_F_LOW,
    P_PERIOD,
    P_DUTY,
    P_MU,
    P_E,
    P_D,
    P_TAU,
    P_BUBBLE_A,
    P_BUBBLE_C,
    P_BUBBLE_H,
    P_FINGER_MASS,
    P_HANDLE_MASS,
    P_BLADE_MASS,
    P_BLADE_DIST,
    P_HANDLE_LEN,
    P_HANDLE_W,
    P_HANDLE_E,
    P_REPR,
    P_G,
    P_VS,
    P_SIGMA,
    P_BETA,
    P_MARGIN,
    P_COUNT
};

static const case_param k_params[P_COUNT] = {
    /* clang-format off */
    {.name = "f_high", .def = 4.0, .unit = "N", .hi = 1e3, .lo_open = 1,
     .meaning = "grasp force of the high phase, each finger (PFC's value is lost; from the "
                "torsional capacity, case notes)",
     .tag = "[default?]"},
    {.name = "f_low", .def = 0.8, .unit = "N", .hi = 1e3, .lo_open = 1,
     .meaning = "grasp force of the low phase, each finger (PFC's value is lost; from the "
                "torsional capacity, case notes)",
     .tag = "[default?]"},
    {.name = "period", .def = 6.0, .unit = "s", .hi = 100, .lo_open = 1,
     .meaning = "period of the square wave", .tag = "[PFC]"},
    {.name = "duty", .def = 0.75, .unit = "-", .hi = 1, .lo_open = 1,
     .meaning = "fraction of the period at the high force (the first part)", .tag = "[PFC]"},
    {.name = "mu", .def = 1.0, .unit = "-", .hi = 10, .meaning = "friction coefficient",
     .tag = "[code]"},
    {.name = "E", .def = 1e5, .unit = "Pa", .hi = 1e12, .lo_open = 1,
     .meaning = "hydroelastic modulus of the bubbles", .tag = "[code]"},
    {.name = "d", .def = 5.0, .unit = "s/m", .hi = 1e4,
     .meaning = "Hunt & Crossley dissipation of the bubbles", .tag = "[code]"},
    {.name = "tau_d", .def = 0.01, .unit = "s", .hi = 10,
     .meaning = "SAP relaxation time of the bubbles", .tag = "[default?]", .read_if = "approx=sap"},
    {.name = "bubble_a", .def = 0.04165, .unit = "m", .hi = 1, .lo_open = 1,
     .meaning = "bubble semi-axes across the handle (grasp axis and vertical)",
     .tag = "[code]"},
    {.name = "bubble_c", .def = 0.0625, .unit = "m", .hi = 1, .lo_open = 1,
     .meaning = "bubble semi-axis along the handle", .tag = "[code]"},
    {.name = "bubble_h", .def = 0.02, .unit = "m", .hi = 1, .lo_open = 1,
     .meaning = "bubble mesh resolution hint (Drake's example: 0.04)", .tag = "[default?]"},
    {.name = "finger_mass", .def = 0.1, .unit = "kg", .hi = 100, .lo_open = 1,
     .meaning = "mass of each finger with its bubble", .tag = "[code]"},
    {.name = "handle_mass", .def = 0.0584, .unit = "kg", .hi = 100, .lo_open = 1,
     .meaning = "handle mass (spatula 68 g in all)", .tag = "[code]"},
    {.name = "blade_mass", .def = 0.0096, .unit = "kg", .hi = 100,
     .meaning = "blade mass (puts the centre of mass 19 mm beyond the grasp, as in Drake's "
                "spatula)", .tag = "[code]"},
    {.name = "blade_dist", .def = 0.135, .unit = "m", .hi = 10, .lo_open = 1,
     .meaning = "blade centre beyond the grasp along the handle", .tag = "[code]"},
    {.name = "handle_length", .def = 0.11, .unit = "m", .hi = 10, .lo_open = 1,
     .meaning = "handle length (grasped at its middle)", .tag = "[code]"},
    {.name = "handle_width", .def = 0.03, .unit = "m", .hi = 1, .lo_open = 1,
     .meaning = "handle cross-section, square (Drake: a cylinder of this diameter)",
     .tag = "[code]"},
    {.name = "handle_modulus", .def = 0, .unit = "Pa", .hi = 1e12,
     .meaning = "0: a rigid handle; > 0: a compliant handle of this hydroelastic modulus "
                "(Drake's current example: 1e8 Pa)",
     .tag = "[default?]"},
    {.name = "repr", .def = 0, .unit = "-", .hi = 1, .integer = 1,
     .meaning = "contact faces: 0 polygons, 1 triangles (formulation-tamsi-hydro §F.3)",
     .tag = "[PFC]"},
    CASE_PARAM_G,
    CASE_PARAM_VS,
    CASE_PARAM_SIGMA,
    CASE_PARAM_BETA,
    CASE_PARAM_MARGIN,
    /* clang-format on */
};

static const char* const k_notes[] = {
    "PFC §V-C: a Soft-bubble gripper anchored to the world holds a spatula by the handle "
    "horizontally; the grasp force is a square wave of 6 s period and 75 % duty cycle between "
    "two levels the extracted text lost. The geometry, masses, modulus, dissipation and friction "
    "are those of Drake's spatula_slip_control example (bubbles: ellipsoids with semi-axes "
    "41.65, 41.65, 62.5 mm, E = 1e5 Pa, d = 5 s/m, mu = 1; spatula 68 g, handle 3 cm thick and "
    "11 cm long, centre of mass 19 mm beyond the grasp). ccb's handle is a rigid square box of "
    "that thickness (PFC's coarsest grids also make it a box); the bubbles' long axes lie along "
    "the handle.",
    "The force levels come from the quasi-static torsional capacity of one patch, T_cap(F) = mu "
    "sum_faces A p |c - c_p| (c_p the pressure centre) at the penetration whose sum A p is F "
    "(study slip, table capacity): gravity's torque m g d = 12.7 mN m is carried by two patches, "
    "so the spatula is held while 2 T_cap(F) > m g d. The first choice, made before any run, was "
    "0.5 N (2 T_cap = 0.48 m g d) and 4 N (6.4 m g d); at 0.5 N the spatula swung past the "
    "vertical at 6.9 rad/s and slid 29 mm down the bubbles, not the paper's controlled rotation, "
    "so the low level is 0.8 N (2 T_cap = 0.87 m g d, 13 % short of holding). Drake's example "
    "today uses 1 N and 6 N with a 3 s period and a 50 % duty cycle. [code] marks values of "
    "Drake's spatula_slip_control example.",
    "Fingers: prismatic joints along the grasp axis y anchored to the world, each pushed toward "
    "the handle by the commanded force; they start at the static squeeze of the high level "
    "(F = pi E c delta^2 / a for the pyramid field of the ellipsoid mesh, clipped by the handle's "
    "faces; the first 0.5 s settle it).",
    "theta: the spatula's rotation about the grasp axis y (positive: the blade goes down). "
    "SAP's relaxation time tau_d = 10 ms gives its linear dissipation about the Hunt & Crossley "
    "damping of the others at the static squeeze [default?].",
};

static const char* const k_obs[] = {"theta [rad]",     "wy [rad/s]",     "grip [N]",
                                    "fn_left [N]",     "fn_right [N]",   "area_left [m2]",
                                    "area_right [m2]", "extent_x [m]",   "extent_z [m]",
                                    "dz [m]",          "faces_left [-]", "candidates_left [-]"};
enum {
    O_THETA,
    O_WY,
    O_GRIP,
    O_FNL,
    O_FNR,
    O_AL,
    O_AR,
    O_EX,
    O_EZ,
    O_DZ,
    O_FACES,
    O_CAND,
    O_COUNT
};

typedef struct spat_data {
    double f_high, f_low, period, duty;
    double d;               /* centre of mass beyond the grasp [m] */
    int finger[2], spatula; /* bodies */
    ccb_hydro_mesh *bubble, *handle;
    ccb_hydro_repr repr;  /* the bubbles' faces */
    int handle_flags;     /* CCB_HYDRO_RIGID_B for a rigid handle, 0 for a compliant one */
    ccb_hydro_surface ws; /* observe's workspace */
} spat_data;

/* The commanded force: high for the first duty x period of every period, then low. */
static double grip_command(const spat_data* s, double t) {
    const double ph = t - floor(t / s->period) * s->period;
    return ph < s->duty * s->period ? s->f_high : s->f_low;
}

static double finger_actuation(double t, double q, double v, void* user) {
    (void)q, (void)v;
    return grip_command(user, t);
}

static void spatula_destroy(void* data);

static int spatula_build(const double* P, ccb_model** out, void** data, char* msg, size_t n) {
    const double a = P[P_BUBBLE_A], c = P[P_BUBBLE_C], w = 0.5 * P[P_HANDLE_W];
    const double mh = P[P_HANDLE_MASS], mb = P[P_BLADE_MASS], xb = P[P_BLADE_DIST];
    const double L = P[P_HANDLE_LEN];
    if (!(xb > 0.5 * L)) {
        snprintf(msg, n, "spatula: the blade (at %g m) must lie beyond the handle's end (%g m)", xb,
                 0.5 * L);
        return -1;
    }
    if (!(P[P_F_LOW] <= P[P_F_HIGH])) {
        snprintf(msg, n, "spatula: f_low (%g N) must not exceed f_high (%g N)", P[P_F_LOW],
                 P[P_F_HIGH]);
        return -1;
    }
    spat_data* s = calloc(1, sizeof *s);
    ccb_model* m = NULL;
    if (s == NULL || ccb_model_create(&m) != CCB_OK) {
        free(s);
        snprintf(msg, n, "spatula: out of memory");
        return -1;
    }
    s->f_high = P[P_F_HIGH];
    s->f_low = P[P_F_LOW];
    s->period = P[P_PERIOD];
    s->duty = P[P_DUTY];
    s->repr = lround(P[P_REPR]) == 0 ? CCB_HYDRO_POLYGONS : CCB_HYDRO_TRIANGLES;
    s->handle_flags = P[P_HANDLE_E] > 0 ? 0 : CCB_HYDRO_RIGID_B;
    const double mass = mh + mb;
    s->d = mb * xb / mass;
    char emsg[256];
    const ccb_hydro_solid bd = {CCB_SOLID_ELLIPSOID, {c, a, a}, P[P_E], P[P_BUBBLE_H], 0};
    /* the rigid handle: only its surface triangles are used (one layer suffices); its grid
     * follows the bubbles' (3/8 of their resolution: 7.5 mm, 4 squares across a face, at the
     * default 2 cm), so that a refinement refines both sides of the patch */
    const double Eh = P[P_HANDLE_E] > 0 ? P[P_HANDLE_E] : P[P_E]; /* (unused when rigid) */
    const ccb_hydro_solid hd = {CCB_SOLID_BOX, {0.5 * L, w, w}, Eh, 0.375 * P[P_BUBBLE_H], 1};
    ccb_status st = ccb_hydro_mesh_solid(&bd, &s->bubble, emsg, sizeof emsg);
    if (st == CCB_OK) {
        st = ccb_hydro_mesh_solid(&hd, &s->handle, emsg, sizeof emsg);
    }
    if (st != CCB_OK) {
        snprintf(msg, n, "spatula: %s", emsg);
        ccb_hydro_mesh_destroy(s->bubble);
        ccb_hydro_mesh_destroy(s->handle);
        free(s);
        ccb_model_destroy(m);
        return -1;
    }
    ccb_model_set_gravity(m, ccb_v3(0, 0, -P[P_G]));
    /* the initial squeeze of the high level: F = pi E c delta^2 / a (case notes) */
    const double delta0 = sqrt(s->f_high * a / (CCB_PI * P[P_E] * c));
    const ccb_material bubble = {P[P_E], P[P_D], P[P_TAU], P[P_MU]};
    for (int f = 0; f < 2 && st == CCB_OK; ++f) {
        const double side = f == 0 ? -1.0 : 1.0; /* left finger at -y, pushing +y */
        const ccb_body_def fd = case_finger(
            f == 0 ? "finger_l" : "finger_r", P[P_FINGER_MASS], ccb_v3(2 * c, 2 * a, 2 * a), -1,
            ccb_v3(0, side * (w + a), 0), ccb_v3(0, -side, 0), delta0, finger_actuation, s);
        st = ccb_model_add_body(m, &fd, &s->finger[f]);
        if (st == CCB_OK) {
            ccb_shape_def sh = ccb_shape_def_default();
            sh.name = f == 0 ? "bubble_l" : "bubble_r";
            sh.type = CCB_SHAPE_HYDRO;
            sh.mesh = s->bubble;
            sh.hydro_repr = s->repr;
            sh.material = bubble;
            st = ccb_model_add_shape(m, s->finger[f], &sh, NULL);
        }
    }
    if (st == CCB_OK) {
        /* the spatula's frame at its centre of mass, d beyond the grasp along x */
        ccb_body_def sp = ccb_body_def_default();
        sp.name = "spatula";
        sp.mobilizer = CCB_MOBILIZER_FREE;
        sp.mass = mass;
        sp.inertia = ccb_m3_identity();
        const double dh = s->d, db = xb - s->d, W = 2 * w, Lb = 0.1, Wb = 0.08, Tb = 0.001;
        sp.inertia.m[0] = mh * (2 * W * W) / 12 + mb * (Wb * Wb + Tb * Tb) / 12;
        sp.inertia.m[4] =
            mh * (L * L + W * W) / 12 + mh * dh * dh + mb * (Lb * Lb + Tb * Tb) / 12 + mb * db * db;
        sp.inertia.m[8] =
            mh * (L * L + W * W) / 12 + mh * dh * dh + mb * (Lb * Lb + Wb * Wb) / 12 + mb * db * db;
        sp.pose = ccb_pose_translation(ccb_v3(s->d, 0, 0));
        st = ccb_model_add_body(m, &sp, &s->spatula);
    }
    if (st == CCB_OK) {
        ccb_shape_def h = ccb_shape_def_default();
        h.name = "handle";
        h.type = CCB_SHAPE_HYDRO;
        h.mesh = s->handle;
        h.pose = ccb_pose_translation(ccb_v3(-s->d, 0, 0));
        /* rigid (k = inf), or compliant with its own layered field (formulation-tamsi-hydro §F.2,
         * two compliant meshes) */
        h.material =
            (ccb_material){P[P_HANDLE_E] > 0 ? P[P_HANDLE_E] : INFINITY, P[P_D], 0.0, P[P_MU]};
        st = ccb_model_add_shape(m, s->spatula, &h, NULL);
    }
    if (st == CCB_OK) {
        st = ccb_model_filter_pair(m, s->finger[0], s->finger[1]);
    }
    if (st == CCB_OK) {
        st = ccb_model_finalize(m);
    }
    const char* why = st == CCB_OK ? NULL : ccb_model_last_error(m);
    /* observe's patch queries allocate nothing during the run: room for 16 times the faces and
     * 64 times the candidate pairs of the static grasp */
    if (st == CCB_OK && ccb_hydro_surface_reserve(&s->ws, 4096, 65536) != CCB_OK) {
        st = CCB_E_NOMEM;
        why = "out of memory";
    }
    if (st != CCB_OK) { /* case_finish_model would free s but not its meshes */
        snprintf(msg, n, "spatula: %s", why);
        ccb_model_destroy(m);
        spatula_destroy(s);
        return -1;
    }
    *out = m;
    *data = s;
    return 0;
}

static void spatula_destroy(void* data) {
    spat_data* s = data;
    if (s != NULL) {
        ccb_hydro_mesh_destroy(s->bubble);
        ccb_hydro_mesh_destroy(s->handle);
        ccb_hydro_surface_free(&s->ws);
        free(s);
    }
}

static void spatula_sim_options(const double* P, ccb_sim_params* sp) {
    case_contact_options(sp, P[P_VS], P[P_SIGMA], P[P_BETA], P[P_MARGIN]);
}

/* Area of the patch of bubble f (the run's faces) and (f = 0) its extents along the handle and
 * across it, in the handle's frame. */
static double patch(spat_data* s, const ccb_model* m, double t, const double* q, int f, double* ex,
                    double* ez) {
    ccb_pose XF, XS;
    if (ccb_model_body_pose(m, s->finger[f], t, q, &XF) != CCB_OK ||
        ccb_model_body_pose(m, s->spatula, t, q, &XS) != CCB_OK) {
        return NAN;
    }
    const ccb_pose XBS = ccb_pose_translation(ccb_v3(-s->d, 0, 0));
    const ccb_pose XH = ccb_pose_compose(&XS, &XBS);
    if (ccb_hydro_intersect(s->bubble, &XF, s->handle, &XH, s->handle_flags, s->repr, &s->ws, NULL,
                            0) != CCB_OK) {
        return NAN;
    }
    double A = 0, lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    const ccb_mat3 RT = ccb_m3_transpose(&XH.R);
    for (int k = 0; k < s->ws.n; ++k) {
        const ccb_hydro_face* fc = &s->ws.faces[k];
        A += fc->area;
        for (int j = 0; j < fc->nverts; ++j) {
            const ccb_vec3 x = ccb_m3_mul_v(&RT, ccb_v3_sub(fc->verts[j], XH.p));
            lo[0] = fmin(lo[0], x.x), hi[0] = fmax(hi[0], x.x);
            lo[1] = fmin(lo[1], x.z), hi[1] = fmax(hi[1], x.z);
        }
    }
    if (ex != NULL) {
        *ex = s->ws.n > 0 ? hi[0] - lo[0] : 0.0;
        *ez = s->ws.n > 0 ? hi[1] - lo[1] : 0.0;
    }
    return A;
}

static void spatula_observe(const ccb_sim* sim, const void* data, const double* P, double* o) {
    spat_data* s = (spat_data*)data; /* observe's workspace only */
    const ccb_model* m = ccb_sim_model(sim);
    const double t = ccb_sim_time(sim);
    const double* q = ccb_sim_q(sim);
    const double* v = ccb_sim_v(sim);
    (void)P;
    ccb_pose XS;
    ccb_twist VS;
    ccb_model_body_pose(m, s->spatula, t, q, &XS);
    ccb_model_body_twist(m, s->spatula, t, q, v, &VS);
    /* rotation about y: the handle axis x_B in the world is (cos theta, 0, -sin theta) */
    o[O_THETA] = atan2(-XS.R.m[6], XS.R.m[0]);
    o[O_WY] = VS.w.y;
    o[O_GRIP] = grip_command(s, t);
    /* the grasp centre's height: the spatula's origin minus d along its axis */
    o[O_DZ] = XS.p.z - s->d * XS.R.m[6];
    o[O_FNL] = o[O_FNR] = 0.0;
    for (int i = 0; i < ccb_sim_ncontacts(sim); ++i) {
        const ccb_contact_result* c = ccb_sim_contact(sim, i);
        const ccb_contact* g = &c->geometry;
        const int finger = g->body_a == s->spatula ? g->body_b : g->body_a;
        o[finger == s->finger[0] ? O_FNL : O_FNR] += c->force[2];
    }
    o[O_AL] = patch(s, m, t, q, 0, &o[O_EX], &o[O_EZ]);
    /* the left patch's faces and the element pairs its search examined: the work of the query
     * (formulation-tamsi-hydro §F.7), deterministic, against its output */
    o[O_FACES] = s->ws.n;
    o[O_CAND] = (double)s->ws.ncandidates;
    o[O_AR] = patch(s, m, t, q, 1, NULL, NULL);
}

/* ---- study slip (PFC Fig. 10) ---------------------------------------------------------------- */

static const char* const k_slip_variants[] = {"tamsi", "sap", "similar", "lagged"};
enum { SLIP_NV = (int)(sizeof k_slip_variants / sizeof k_slip_variants[0]) };

static int slip_runs(study_ctx* ctx, study_batch* b) {
    if (study_batch_alloc(b, SLIP_NV) != 0) {
        return 2;
    }
    const double T = 2 * ctx->params[P_PERIOD];
    for (int i = 0; i < SLIP_NV; ++i) {
        variant_def v;
        variant_find(k_slip_variants[i], &v);
        study_config(ctx, &b->cfg[i], "slip", v.name, &ccb_approx_lagged, 2e-3, T);
        variant_configure(&v, &b->cfg[i], NAN);
    }
    return 0;
}

/* Angles and rates of a run over the phases of the square wave: the rotation during each high
 * phase after its first 0.5 s (settling), the rotation during each low phase, the largest
 * |omega|, the largest drop of the grasp centre, the final angle of the first low phase. */
typedef struct slip_metrics {
    double hold_max;   /* largest |theta change| within a high phase after 0.5 s [rad] */
    double low_rot[2]; /* theta change over low phases 1 and 2 [rad] */
    double theta_end1; /* theta at the end of the first low phase [rad] */
    double wmax;       /* largest |omega_y| [rad/s] */
    double w_end1;     /* |omega_y| at the end of the first low phase [rad/s] */
    double dz_max;     /* largest |dz| [m] */
    double elong;      /* extent along / across the handle at the end of the first high phase */
    double area_hi, area_lo; /* left patch area at the end of the first high and low phase */
} slip_metrics;

static void slip_eval(const run_record* r, const double* P, slip_metrics* sm) {
    const double T = P[P_PERIOD], th = P[P_DUTY] * T, dt = r->cfg.dt;
    memset(sm, 0, sizeof *sm);
    sm->low_rot[0] = sm->low_rot[1] = sm->theta_end1 = sm->elong = sm->w_end1 = NAN;
    if (r->status != CCB_OK || r->nsteps < 1) {
        sm->hold_max = sm->wmax = sm->dz_max = NAN;
        return;
    }
    const double dz0 = run_obs(r, 1, O_DZ);
    for (int c = 0; c < 2; ++c) {
        const long k_hold = lround((c * T + 0.5) / dt), k_hi_end = lround((c * T + th) / dt);
        const long k_lo_end = lround((c + 1) * T / dt);
        if (k_lo_end > r->nsteps) {
            break;
        }
        for (long k = k_hold; k <= k_hi_end; ++k) {
            sm->hold_max =
                fmax(sm->hold_max, fabs(run_obs(r, k, O_THETA) - run_obs(r, k_hold, O_THETA)));
        }
        sm->low_rot[c] = run_obs(r, k_lo_end, O_THETA) - run_obs(r, k_hi_end, O_THETA);
        if (c == 0) {
            sm->theta_end1 = run_obs(r, k_lo_end, O_THETA);
            sm->w_end1 = fabs(run_obs(r, k_lo_end, O_WY));
            sm->elong = run_obs(r, k_hi_end, O_EX) / run_obs(r, k_hi_end, O_EZ);
            sm->area_hi = run_obs(r, k_hi_end, O_AL);
            sm->area_lo = run_obs(r, k_lo_end, O_AL);
        }
    }
    for (long k = 1; k <= r->nsteps; ++k) {
        sm->wmax = fmax(sm->wmax, fabs(run_obs(r, k, O_WY)));
        sm->dz_max = fmax(sm->dz_max, fabs(run_obs(r, k, O_DZ) - dz0));
    }
}

static void slip_row(study_ctx* ctx, const run_record* r, double* val) {
    slip_metrics sm;
    slip_eval(r, ctx->params, &sm);
    const double cells[] = {sm.hold_max, sm.low_rot[0], sm.low_rot[1], sm.theta_end1,
                            sm.wmax,     sm.w_end1,     sm.dz_max,     sm.elong};
    memcpy(val, cells, sizeof cells);
    const char* L = r->cfg.label;
    study_set_metricf(ctx, r->status == CCB_OK ? 1.0 : 0.0, "slip.%s.completed", L);
    study_set_metricf(ctx, sm.hold_max, "slip.%s.hold_rotation_max", L);
    study_set_metricf(ctx, sm.low_rot[0], "slip.%s.low1_rotation", L);
    study_set_metricf(ctx, sm.low_rot[1], "slip.%s.low2_rotation", L);
    study_set_metricf(ctx, sm.theta_end1, "slip.%s.theta_end1", L);
    study_set_metricf(ctx, sm.wmax, "slip.%s.omega_max", L);
    study_set_metricf(ctx, sm.w_end1, "slip.%s.omega_end1", L);
    study_set_metricf(ctx, sm.dz_max, "slip.%s.dz_max", L);
    study_set_metricf(ctx, sm.elong, "slip.%s.elongation", L);
}

/* The quasi-static torsional capacity of one patch at grasp force F: the bubble pressed into the
 * handle (bisection on the penetration until sum A p = F), T_cap = mu sum A p |c - c_p|. */
static double torsional_capacity(const spat_data* s, const double* P, double F, double* area) {
    const double a = P[P_BUBBLE_A], w = 0.5 * P[P_HANDLE_W];
    ccb_hydro_surface ws = {0};
    const ccb_pose XH = ccb_pose_translation(ccb_v3(0, 0, 0));
    double lo = 0, hi = a, Fs = 0;
    for (int it = 0; it < 60; ++it) {
        const double d = 0.5 * (lo + hi);
        const ccb_pose XB = ccb_pose_translation(ccb_v3(0, -(w + a - d), 0));
        ccb_hydro_intersect(s->bubble, &XB, s->handle, &XH, s->handle_flags, CCB_HYDRO_POLYGONS,
                            &ws, NULL, 0);
        Fs = 0;
        for (int k = 0; k < ws.n; ++k) {
            Fs += ws.faces[k].area * ws.faces[k].pressure;
        }
        if (Fs < F) {
            lo = d;
        } else {
            hi = d;
        }
    }
    double cx = 0, cz = 0, Tc = 0;
    *area = 0;
    for (int k = 0; k < ws.n; ++k) {
        const double f = ws.faces[k].area * ws.faces[k].pressure;
        cx += f * ws.faces[k].centroid.x / Fs;
        cz += f * ws.faces[k].centroid.z / Fs;
        *area += ws.faces[k].area;
    }
    for (int k = 0; k < ws.n; ++k) {
        const double f = ws.faces[k].area * ws.faces[k].pressure;
        Tc += P[P_MU] * f * hypot(ws.faces[k].centroid.x - cx, ws.faces[k].centroid.z - cz);
    }
    ccb_hydro_surface_free(&ws);
    return Tc;
}

static int slip_finish(study_ctx* ctx, const fig_data* fd, const char* dir) {
    (void)dir;
    const double* P = ctx->params;
    ccb_model* m = NULL;
    void* data = NULL;
    char msg[256];
    if (spatula_build(P, &m, &data, msg, sizeof msg) != 0) {
        fprintf(stderr, "spatula slip: %s\n", msg);
        return 2;
    }
    const spat_data* s = data;
    const double mass = P[P_HANDLE_MASS] + P[P_BLADE_MASS];
    const double tg = mass * P[P_G] * s->d;
    const double levels[2] = {P[P_F_LOW], P[P_F_HIGH]};
    double cap[2];
    for (int i = 0; i < 2; ++i) {
        double area;
        cap[i] = torsional_capacity(s, P, levels[i], &area);
        study_row(ctx, "capacity");
        const double cells[] = {levels[i], area, cap[i], 2 * cap[i] / tg};
        study_nums(ctx, "capacity", cells, 4);
    }
    /* the quasi-static end of the slip: m g d cos(theta) = 2 T_cap(F_low) */
    const double ratio = 2 * cap[0] / tg;
    const double theta_qs = ratio < 1 ? acos(ratio) : 0.0;
    study_set_metric(ctx, "slip.capacity_ratio_low", ratio);
    study_set_metric(ctx, "slip.capacity_ratio_high", 2 * cap[1] / tg);
    study_set_metric(ctx, "slip.theta_quasi_static", theta_qs);
    study_value(ctx, "torque_mNm", 1e3 * tg);
    study_value(ctx, "theta_qs_deg", theta_qs * 180 / CCB_PI);
    /* the free swing's largest rate, a quarter turn from rest about the grasp axis:
     * omega_free = sqrt(2 m g d / (I_yy + m d^2)) */
    ccb_body_def sd;
    ccb_model_body_def_get(m, s->spatula, &sd);
    const double wfree = sqrt(2 * tg / (sd.inertia.m[4] + mass * s->d * s->d));
    study_set_metric(ctx, "slip.omega_free", wfree);
    study_value(ctx, "omega_free", wfree);
    /* the figure's series: the first run (TAMSI) every 10 ms */
    const run_record* r = &fd->b->rec[0];
    const long every = lround(0.01 / r->cfg.dt);
    for (long k = every; r->status == CCB_OK && k <= r->nsteps; k += every) {
        study_row(ctx, "series");
        const double cells[] = {k * r->cfg.dt,       run_obs(r, k, O_GRIP), run_obs(r, k, O_THETA),
                                run_obs(r, k, O_WY), run_obs(r, k, O_AL),   run_obs(r, k, O_AR),
                                run_obs(r, k, O_EX), run_obs(r, k, O_EZ)};
        study_nums(ctx, "series", cells, 8);
    }
    ccb_model_destroy(m);
    spatula_destroy(data);
    return 0;
}

static const fig_table k_slip_tables[] = {
    {.name = "capacity",
     .md = "| grasp force [N] | patch area [m²] | T_cap of one patch [N m] | 2 T_cap / (m g d) "
           "|\n|---|---|---|---|\n",
     .cells = "%g|%.4g|%.4g|%.3f"},
    {.name = "series",
     .file = "series.csv",
     .header = "t [s],grip [N],theta [rad],wy [rad/s],area_left [m2],area_right [m2],"
               "extent_x [m],extent_z [m]",
     .cells = "%.6g|%.9g"},
    {.name = NULL}};

static const fig_study k_slip = {
    .claim = "With the grasp force a square wave (6 s period, 75 % duty cycle), the spatula held "
             "by its handle between two soft bubbles is held with stiction in the high phase and "
             "rotates within the grasp in a controlled way in the low phase; the contact patch "
             "is elongated along the handle; the net torque comes from the patch area (PFC "
             "§V-C, Figs. 1 and 10).",
    .make_runs = slip_runs,
    .columns = "hold_max [rad],low1_rot [rad],low2_rot [rad],theta_end1 [rad],omega_max [rad/s],"
               "omega_end1 [rad/s],dz_max [m],elongation [-]",
    .row = slip_row,
    .finish = slip_finish,
    .tables = k_slip_tables,
    .report =
        "Gravity's torque about the grasp axis m g d = {torque_mNm|%.3g} mN m. The "
        "quasi-static torsional capacity of one patch at the two force levels (how the "
        "levels were chosen, case notes):\n\n{table:capacity}\nThe low level's two patches "
        "carry a fraction {slip.capacity_ratio_low|%.2f} of the torque: quasi-statically "
        "the spatula turns until cos(theta) equals it, theta = {theta_qs_deg|%.1f} deg; the runs "
        "turn further (theta_end1), since the patches shrink and turn with the handle and "
        "the swing overshoots. A free swing from rest would reach {omega_free|%.3g} rad/s "
        "(omega_max is the runs' largest rate).\n\n",
    .script = "spatula_slip.gp",
    .plot = "title='Spatula slip control: force command, angle and patch area (PFC Fig. 10)'",
};

/* ---- study refinement (PFC §V-B, Figs. 8-9) ---------------------------------------------------- */

/* The bubbles' mesh at four resolutions, each step doubling the faces (h / sqrt(2)), with polygons
 * and with triangles, over the first period (hold, release, turn, hold) with SAP, the solver of
 * PFC's refinement study. The quick tier runs the three coarsest (a range of 4x in the faces instead
 * of 8x): the finest pair took 14 of the study's 30 s and decides nothing the three do not (the
 * task at every resolution, the faces' ratio per resolution, the search's exponent over them). */
#define REF_N 4
#define REF_N_QUICK 3
static const double k_ref_h[REF_N] = {0.04, 0.028, 0.02, 0.014};
static int ref_n(const study_ctx* ctx) {
    return ctx->tier == CASE_TIER_QUICK ? REF_N_QUICK : REF_N;
}

static int ref_runs(study_ctx* ctx, study_batch* b) {
    const int nref = ref_n(ctx);
    if (study_batch_alloc(b, 2 * nref) != 0) {
        return 2;
    }
    variant_def v;
    variant_find("sap", &v);
    for (int i = 0; i < 2 * nref; ++i) {
        const int k = i / 2, tri = i % 2;
        char label[64];
        snprintf(label, sizeof label, "h%g_%s", k_ref_h[k], tri ? "triangles" : "polygons");
        study_config(ctx, &b->cfg[i], "refinement", label, &ccb_approx_sap, 2e-3,
                     ctx->params[P_PERIOD]);
        variant_configure(&v, &b->cfg[i], NAN);
        b->cfg[i].params[P_BUBBLE_H] = k_ref_h[k];
        b->cfg[i].params[P_REPR] = tri;
    }
    return 0;
}

/* Per run: contact constraints (faces of both patches) per step, the left patch's faces and
 * candidate pairs per step, geometry and solver wall time per step. */
typedef struct ref_facts {
    double faces, left_faces, left_cand, t_geo, t_solve;
} ref_facts;

static ref_facts ref_eval(const run_record* r) {
    ref_facts f = {NAN, NAN, NAN, NAN, NAN};
    if (r->status != CCB_OK || r->nsteps < 1) {
        return f;
    }
    const double n = (double)r->nsteps;
    double lf = 0, lc = 0;
    for (long k = 1; k <= r->nsteps; ++k) {
        lf += run_obs(r, k, O_FACES);
        lc += run_obs(r, k, O_CAND);
    }
    f.faces = (double)r->ncontacts_total / n;
    f.left_faces = lf / n;
    f.left_cand = lc / n;
    f.t_geo = r->t_geometry / n;
    f.t_solve = r->t_solve / n;
    return f;
}

static void ref_row(study_ctx* ctx, const run_record* r, double* val) {
    slip_metrics sm;
    slip_eval(r, ctx->params, &sm);
    const ref_facts f = ref_eval(r);
    const double cells[] = {f.faces,       f.left_cand / f.left_faces,
                            1e6 * f.t_geo, 1e6 * f.t_solve,
                            sm.hold_max,   sm.low_rot[0],
                            sm.theta_end1, sm.dz_max};
    memcpy(val, cells, sizeof cells);
}

static int ref_finish(study_ctx* ctx, const fig_data* fd, const char* dir) {
    (void)dir;
    double faces[2][REF_N], cand[REF_N], lf[REF_N], tg[2][REF_N], ts[2][REF_N], th[2][REF_N];
    double hold = 0, low = INFINITY, dz = 0;
    const int nref = ref_n(ctx);
    for (int i = 0; i < 2 * nref; ++i) {
        const int k = i / 2, tri = i % 2;
        const run_record* r = &fd->b->rec[i];
        const ref_facts f = ref_eval(r);
        slip_metrics sm;
        slip_eval(r, ctx->params, &sm);
        faces[tri][k] = f.faces;
        tg[tri][k] = f.t_geo;
        ts[tri][k] = f.t_solve;
        th[tri][k] = sm.theta_end1;
        if (!tri) {
            cand[k] = f.left_cand;
            lf[k] = f.left_faces;
        }
        hold = fmax(hold, sm.hold_max);
        low = fmin(low, sm.low_rot[0]);
        dz = fmax(dz, sm.dz_max);
        if (r->status != CCB_OK) {
            hold = low = dz = NAN;
        }
    }
    double ratio_min = INFINITY, ratio_sum = 0, speed_sum = 0, dtheta = 0;
    for (int k = 0; k < nref; ++k) {
        const double ratio = faces[1][k] / faces[0][k], speed = ts[1][k] / ts[0][k];
        ratio_min = fmin(ratio_min, ratio);
        ratio_sum += ratio / nref;
        speed_sum += speed / nref;
        for (int tri = 0; tri < 2; ++tri) {
            dtheta = fmax(dtheta, fabs(th[tri][k] - th[0][nref - 1]));
        }
        study_row(ctx, "levels");
        const double cells[] = {k_ref_h[k],      faces[0][k],    faces[1][k],    ratio,
                                cand[k] / lf[k], 1e6 * tg[0][k], 1e6 * ts[0][k], 1e6 * ts[1][k],
                                speed,           th[0][k],       th[1][k]};
        study_nums(ctx, "levels", cells, sizeof cells / sizeof cells[0]);
    }
    /* exponents: the search's candidate pairs and the geometry's wall time against the left
     * patch's faces (all constraints for the wall time), the solver's time against constraints */
    double p_cand = NAN, p_geo = NAN, p_solve = NAN;
    ccb_an_order(nref, lf, cand, &p_cand, NULL, NULL);
    ccb_an_order(nref, faces[0], tg[0], &p_geo, NULL, NULL);
    ccb_an_order(nref, faces[0], ts[0], &p_solve, NULL, NULL);
    study_set_metric(ctx, "refinement.faces_ratio_min", ratio_min);
    study_set_metric(ctx, "refinement.faces_ratio_mean", ratio_sum);
    study_set_metric(ctx, "refinement.solver_speedup_mean", speed_sum);
    study_set_metric(ctx, "refinement.candidates_exponent", p_cand);
    study_set_metric(ctx, "refinement.geometry_time_exponent", p_geo);
    study_set_metric(ctx, "refinement.solver_time_exponent", p_solve);
    study_set_metric(ctx, "refinement.theta_end1_spread", dtheta);
    study_set_metric(ctx, "refinement.hold_rotation_max", hold);
    study_set_metric(ctx, "refinement.low1_rotation_min", low);
    study_set_metric(ctx, "refinement.dz_max", dz);
    study_text(ctx, "quick",
               nref < REF_N ? " Quick tier: the three coarsest resolutions (h = 4, 2.8 and 2 cm); "
                              "the full tier adds 1.4 cm."
                            : "");
    /* PFC Fig. 9: the left patch's faces over time at the default resolution (2 cm), polygons and
     * triangles, every 10 ms */
    const run_record *rp = &fd->b->rec[4], *rt = &fd->b->rec[5];
    const long every = lround(0.01 / rp->cfg.dt);
    for (long k = every;
         rp->status == CCB_OK && rt->status == CCB_OK && k <= rp->nsteps && k <= rt->nsteps;
         k += every) {
        study_row(ctx, "faces");
        const double cells[] = {k * rp->cfg.dt, run_obs(rp, k, O_FACES), run_obs(rt, k, O_FACES)};
        study_nums(ctx, "faces", cells, 3);
    }
    return 0;
}

static const fig_table k_ref_tables[] = {
    {.name = "levels",
     .file = "levels.csv",
     .header =
         "h [m],faces_polygons [-],faces_triangles [-],faces_ratio [-],candidates_per_face [-],"
         "geometry_wall_polygons [us],solver_wall_polygons [us],solver_wall_triangles [us],"
         "solver_wall_speedup [-],theta_end1_polygons [rad],theta_end1_triangles [rad]",
     .md = "| bubble mesh h [m] | constraints per step, polygons | triangles | ratio | candidate "
           "pairs per face | geometry [µs/step] | solver, polygons [µs/step] | triangles | "
           "speedup | theta at 6 s, polygons [rad] | triangles |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|\n",
     .cells = "%g|%.1f|%.1f|%.2f|%.1f|%.0f|%.0f|%.0f|%.2f|%.3f|%.3f"},
    {.name = "faces",
     .file = "faces.csv",
     .header = "t [s],faces_left_polygons [-],faces_left_triangles [-]",
     .cells = "%.6g|%.9g"},
    {.name = NULL}};

static const fig_study k_refinement = {
    .claim = "Polygons give 4.05x fewer faces than triangles and a 4.09x faster solve; the "
             "geometric queries cost time linear in the number of faces (OBB hierarchies); the "
             "solver's cost grows with a best-fit exponent well below the dense one; the task "
             "succeeds at every grid refinement (PFC §V-B, Figs. 8-9; ccb: the spatula's first "
             "period instead of the pancake flip, the bubbles refined).",
    .make_runs = ref_runs,
    .columns =
        "constraints [-],candidates_per_face [-],geometry_wall [us/step],solver_wall [us/step],"
        "hold_max [rad],low1_rot [rad],theta_end1 [rad],dz_max [m]",
    .row = ref_row,
    .finish = ref_finish,
    .tables = k_ref_tables,
    .report = "Per refinement of the bubbles' mesh (SAP, dt = 2 ms, 6 s: hold, release, turn, "
              "hold).{text:quick}\n\n{table:levels}\nTriangles over polygons: "
              "{refinement.faces_ratio_mean|%.2f}x the faces on average (the paper: 4.05x) and "
              "{refinement.solver_speedup_mean|%.2f}x the solver time (the paper: 4.09x). Best-fit "
              "exponents against the faces: the search's candidate pairs "
              "{refinement.candidates_exponent|%.2f} (deterministic), the geometry's wall time "
              "{refinement.geometry_time_exponent|%.2f}; the solver's wall time against the "
              "constraints {refinement.solver_time_exponent|%.2f}. The task's outcome: the "
              "angle after the first release differs by at most "
              "{refinement.theta_end1_spread|%.3f} rad from the finest polygonal mesh's.\n\n",
    .script = "spatula_refinement.gp",
    .plot = "title='Spatula, mesh refinement: time per step against constraints (PFC Fig. 8) and "
            "faces over time (PFC Fig. 9)'",
};

/* ---- standard studies: the spatula's angle against Lagged at dt / 10 ------------------------- */

static double spatula_std_error(const run_record* r, const run_record* ref, const double* P) {
    (void)P;
    if (ref == NULL || r->status != CCB_OK || ref->status != CCB_OK || r->nsteps < 1) {
        return NAN;
    }
    /* RMS over the run's grid of theta - theta_ref (the reference on a grid dt / 10 finer) */
    const long ratio = lround(r->cfg.dt / ref->cfg.dt);
    double s = 0;
    long n = 0;
    for (long k = 1; k <= r->nsteps && k * ratio <= ref->nsteps; ++k) {
        const double e = run_obs(r, k, O_THETA) - run_obs(ref, k * ratio, O_THETA);
        s += e * e;
        ++n;
    }
    return n > 0 ? sqrt(s / n) : NAN;
}

static const case_std k_std = {
    .error_name = "e_theta",
    .error_unit = "rad",
    .error_what = "RMS over the run of the spatula's angle about the grasp axis against Lagged at "
                  "the smallest dt / 10, through the switch to the low force at 4.5 s.",
    .error = spatula_std_error,
    .ref = STD_REF_RUN,
    .ref_variant = "lagged",
    .ref_ratio = 10.0,
    .t_final = 5.0,
    .t_final_quick = 5.0,
    .dts = {1e-2, 5e-3, 2e-3, 1e-3},
    .ndt = 4,
    .dts_quick = {1e-2, 5e-3},
    .ndt_quick = 2};

static const case_study k_studies[] = {
    {.name = "slip",
     .title = "force command, angle and patch area over two periods of the square wave",
     .figure = "PFC Fig. 10",
     .decl = &k_slip},
    {.name = "refinement",
     .title = "faces, candidate pairs, geometry and solver time against four mesh refinements, "
              "polygons and triangles; the outcome at each",
     .figure = "PFC Figs. 8-9",
     .decl = &k_refinement}};

static const char* const k_quick[] = {"slip", "refinement", "gradients", NULL};

const case_desc case_spatula = {
    .name = "spatula",
    .title = "Spatula slip control: torsional friction of hydroelastic patches",
    .paper = "Masterjohn, Guoy, Shepherd, Castro, Velocity level approximation of pressure field "
             "contact patches, RA-L 2022 (arXiv 2110.04157), §V-C, Figs. 1 and 10",
    .params = k_params,
    .nparams = P_COUNT,
    .notes = k_notes,
    .nnotes = (int)(sizeof k_notes / sizeof k_notes[0]),
    .dt_default = 2e-3,
    .t_final_default = 12.0,
    .approx_default = "lagged",
    .build = spatula_build,
    .destroy = spatula_destroy,
    .sim_options = spatula_sim_options,
    .nobs = O_COUNT,
    .obs_names = k_obs,
    .observe = spatula_observe,
    .studies = k_studies,
    .nstudies = (int)(sizeof k_studies / sizeof k_studies[0]),
    .quick_studies = k_quick,
    .bench_approx = "lagged",
    .std = &k_std};
