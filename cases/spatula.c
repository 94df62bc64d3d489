/* Case SPATULA — slip control of a spatula held by two compliant bubbles (spec: cases.md §13;
 * PFC paper §V-C, Fig. 10; the model of Drake's spatula_slip_control example).
 *
 * Two soft bubbles (compliant ellipsoids, E = 1e5 Pa, on prismatic fingers anchored to the world)
 * squeeze the handle of a rigid spatula held horizontally. Gravity pulls the spatula's centre of
 * mass, d = 44.3 mm beyond the grasp, into a torque m g d about the grasp axis; only the friction of
 * the two contact patches resists it, and its torsional part grows with the patches' size, hence
 * with the grasp force. The force follows a square wave (6 s period, 75 % duty cycle) between
 * Drake's example's 6 N, whose patches hold the spatula, and 1 N, whose patches do not: held in
 * the high phase, the spatula turns in the low one by what a rigid body on those patches turns,
 * and is held again. Contact is general hydroelastic (formulation-tamsi-hydro §F.2: compliant mesh
 * against a rigid triangle mesh), one point contact per polygon.
 *
 * Studies:
 *   slip         18 s (three periods) with TAMSI and the convex approximations (Drake's inertia)
 *                and Lagged with the physical inertia: force command, angle, angular velocity and
 *                patch area over time (PFC Fig. 10); the quasi-static torsional capacity at the
 *                two force levels; every low phase's turn against the turn of a rigid spatula on
 *                the quasi-static patches (turn_model); gates SPAT-1 (held in every high phase,
 *                up to the creep of the regularized friction), SPAT-2 (every low phase turns as
 *                the rigid estimate with the solver's friction law, within +-7 %; not dropped),
 *                SPAT-3 (the patch is elongated along the handle), SPAT-4 (the levels' regime).
 *   refinement   SAP on four bubble meshes, polygons and triangles (PFC §V-B, Figs. 8-9): SPAT-5.
 *   sensitivity  Lagged and SAP with the modulus doubled, mu +-15 % and the dissipation doubled,
 *                held to the case's estimates: SPAT-6 (the gates move with the physics). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "spatula.h"

static const case_param k_params[P_COUNT] = {
    /* clang-format off */
    {.name = "f_high", .def = 6.0, .unit = "N", .hi = 1e3, .lo_open = 1,
     .meaning = "grasp force of the high phase, each finger (PFC's value is lost; Drake's "
                "example of the paper's time: 1 N plus a 5 N square wave)",
     .tag = "[code]"},
    {.name = "f_low", .def = 1.0, .unit = "N", .hi = 1e3, .lo_open = 1,
     .meaning = "grasp force of the low phase, each finger (PFC's value is lost; Drake's "
                "example of the paper's time: its 1 N baseline)",
     .tag = "[code]"},
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
    {.name = "handle_mass", .def = 0.058237, .unit = "kg", .hi = 100, .lo_open = 1,
     .meaning = "handle mass (Drake: the spatula's 68 g; split with the blade so that the centre "
                "of mass lies where Drake's does, 44.26 mm beyond the grasp)",
     .tag = "[code]"},
    {.name = "blade_mass", .def = 0.009763, .unit = "kg", .hi = 100,
     .meaning = "blade mass (the rest of the 68 g)", .tag = "[code]"},
    {.name = "blade_dist", .def = 0.16792, .unit = "m", .hi = 10, .lo_open = 1,
     .meaning = "blade centre beyond the grasp along the handle (Drake's spatula origin)",
     .tag = "[code]"},
    {.name = "grasp_offset", .def = 0.02353, .unit = "m", .hi = 10,
     .meaning = "the handle's middle beyond the grasp (the bubbles' centre plane) along the "
                "handle, toward the blade", .tag = "[code]"},
    {.name = "inertia", .def = 1, .unit = "-", .hi = 1, .integer = 1,
     .meaning = "the spatula's rotational inertia: 1 Drake's example (0.211 kg m2 about the "
                "grasp axis), 0 physical, from the masses and shapes (2.4e-4 kg m2)",
     .tag = "[code]"},
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
    "two levels the extracted text lost. The model is Drake's spatula_slip_control example at "
    "13be9359ec (2022-03-02, the version of the paper's time; files models/spatula.sdf, "
    "models/schunk_wsg_50_hydro_bubble.sdf, spatula_slip_control.cc): bubbles are ellipsoids "
    "with semi-axes 41.65, 41.65, 62.5 mm, E = 1e5 Pa, d = 5 s/m, mu = 1, on fingers of 0.1 kg; "
    "the spatula weighs 68 g, its handle is a cylinder 3 cm thick and 11 cm long whose middle "
    "lies 23.5 mm beyond the bubbles' centres, its centre of mass 44.26 mm beyond them, and its "
    "inertia about the grasp axis is 0.211 kg m2. The levels are the example's: a 1 N baseline "
    "plus a 5 N square wave, so 6 N and 1 N per finger; the period and duty cycle are the "
    "paper's (the example: 3 s, 50 %). [code] marks the example's values.",
    "Departures from the example, each stated: the handle is a rigid square box of the "
    "cylinder's thickness (the example: a compliant cylinder of 1e8 Pa, 1000x the bubbles; "
    "--set handle_modulus=1e8 makes ccb's compliant too); the handle and the centre of mass lie "
    "on the bubbles' centre line (the example's are 3.8 and 2.6 mm below it, and the handle is "
    "tilted 1.7 deg); the bubbles' mesh is ccb's own (resolution 2 cm; the example's hint is 4 "
    "cm); "
    "the fingers start at the high level's static squeeze (the example: 1 cm open); dt = 10 ms "
    "with ccb's solvers (the example: 40 ms with Drake's TAMSI of 2022). The handle's and blade's "
    "masses (58.2 and 9.8 g, the blade 168 mm beyond the grasp) split the 68 g so that the centre "
    "of mass is the example's.",
    "The inertia: the example's 0.211 kg m2 about the grasp axis is some 860x what 68 g in those "
    "shapes have (2.4e-4 kg m2, --set inertia=0). With it the low phase's torque deficit "
    "m g d - 2 T_cap(1 N) = 15 mN m turns the spatula slowly, about 0.09 rad per low phase: the "
    "paper's controlled slip. With the physical inertia the same deficit swings it past the "
    "vertical in the first low phase (the slip study's lagged-physical run): the paper's "
    "behaviour is the example's inertia's.",
    "The estimate of a low phase's turn (turn_model): a rigid spatula on the two patches that the "
    "low force presses quasi-statically (the bubble pushed into the handle until sum A p = F), "
    "slipping as a rotation about the centre where the patches' friction carries the weight, "
    "I alpha = the friction's torque about the centre of mass; Coulomb's law, or the friction law "
    "of the run's solver (TAMSI's regularization, the soft norm of Lagged and Similar; SAP's "
    "stiction disk is ~1e-6 m/s, so Coulomb's). From rest at the angle the run had when the force "
    "fell. The gates' band, +-7 %, was set by a rule before the runs were compared: half of what a "
    "15 % error of mu moves the estimate by (14.8 %).",
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

/* The commanded force: high for the first duty x period of every period, then low. */
static double grip_command(const spat_data* s, double t) {
    const double ph = t - floor(t / s->period) * s->period;
    return ph < s->duty * s->period ? s->f_high : s->f_low;
}

static double finger_actuation(double t, double q, double v, void* user) {
    (void)q, (void)v;
    return grip_command(user, t);
}

/* The rotational inertia of Drake's spatula (examples/hydroelastic/spatula_slip_control/models/
 * spatula.sdf at 13be9359ec, 2022-03-02: the tensor about the centre of mass in the spatula's
 * frame), in ccb's axes: Drake poses the spatula with roll-pitch-yaw (-0.4, 0, 1.57), which puts
 * its handle along the world's x (1.7 deg off), the grasp axis along y; I_W = R I_S R^T. About
 * the grasp axis it is 0.211 kg m2, some 860 times what the 68 g of the spatula's shapes give. */
static void spatula_drake_inertia(ccb_mat3* I) {
    const double Is[9] = {0.21095403274864072, -4.264472553729218e-08, 0.0, -4.264472553729218e-08,
                          0.03710803288660893, -0.06982169738550205,   0.0, -0.06982169738550205,
                          0.18858265237650276};
    const double r = -0.4, y = 1.57, cr = cos(r), sr = sin(r), cy = cos(y), sy = sin(y);
    /* R = Rz(y) Rx(r) */
    const double R[9] = {cy, -sy * cr, sy * sr, sy, cy * cr, -cy * sr, 0.0, sr, cr};
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            double v = 0;
            for (int k = 0; k < 3; ++k) {
                for (int l = 0; l < 3; ++l) {
                    v += R[3 * i + k] * Is[3 * k + l] * R[3 * j + l];
                }
            }
            I->m[3 * i + j] = v;
        }
    }
}

/* The spatula's centre of mass beyond the grasp, and its inertia about it (P_INERTIA: Drake's, or
 * the handle a box and the blade a plate, each about its centre, moved to the centre of mass). */
double spatula_com(const double* P) {
    const double mh = P[P_HANDLE_MASS], mb = P[P_BLADE_MASS];
    return (mh * P[P_GRASP_OFF] + mb * P[P_BLADE_DIST]) / (mh + mb);
}

void spatula_inertia(const double* P, ccb_mat3* I) {
    *I = ccb_m3_identity();
    if (lround(P[P_INERTIA]) == 1) {
        spatula_drake_inertia(I);
        return;
    }
    const double mh = P[P_HANDLE_MASS], mb = P[P_BLADE_MASS], L = P[P_HANDLE_LEN];
    const double d = spatula_com(P), dh = P[P_GRASP_OFF] - d, db = P[P_BLADE_DIST] - d;
    const double W = P[P_HANDLE_W], Lb = 0.1, Wb = 0.08, Tb = 0.001;
    I->m[0] = mh * (2 * W * W) / 12 + mb * (Wb * Wb + Tb * Tb) / 12;
    I->m[4] =
        mh * (L * L + W * W) / 12 + mh * dh * dh + mb * (Lb * Lb + Tb * Tb) / 12 + mb * db * db;
    I->m[8] =
        mh * (L * L + W * W) / 12 + mh * dh * dh + mb * (Lb * Lb + Wb * Wb) / 12 + mb * db * db;
}

int spatula_build(const double* P, ccb_model** out, void** data, char* msg, size_t n) {
    const double a = P[P_BUBBLE_A], c = P[P_BUBBLE_C], w = 0.5 * P[P_HANDLE_W];
    const double mh = P[P_HANDLE_MASS], mb = P[P_BLADE_MASS], xb = P[P_BLADE_DIST];
    const double L = P[P_HANDLE_LEN], xh = P[P_GRASP_OFF];
    if (!(xb > xh + 0.5 * L)) {
        snprintf(msg, n, "spatula: the blade (at %g m) must lie beyond the handle's end (%g m)", xb,
                 xh + 0.5 * L);
        return -1;
    }
    if (!(xh < 0.5 * L)) {
        snprintf(msg, n,
                 "spatula: the grasp (%g m from the handle's middle) must lie on the "
                 "handle (half length %g m)",
                 xh, 0.5 * L);
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
    s->d = spatula_com(P);
    s->xh = xh;
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
    const ccb_material bubble = {P[P_E], P[P_D], P[P_TAU], P[P_MU], 0.0};
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
        spatula_inertia(P, &sp.inertia);
        sp.pose = ccb_pose_translation(ccb_v3(s->d, 0, 0));
        st = ccb_model_add_body(m, &sp, &s->spatula);
    }
    if (st == CCB_OK) {
        ccb_shape_def h = ccb_shape_def_default();
        h.name = "handle";
        h.type = CCB_SHAPE_HYDRO;
        h.mesh = s->handle;
        h.pose = ccb_pose_translation(ccb_v3(s->xh - s->d, 0, 0));
        /* rigid (k = inf), or compliant with its own layered field (formulation-tamsi-hydro §F.2,
         * two compliant meshes) */
        h.material =
            (ccb_material){P[P_HANDLE_E] > 0 ? P[P_HANDLE_E] : INFINITY, P[P_D], 0.0, P[P_MU], 0.0};
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

void spatula_destroy(void* data) {
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
    const ccb_pose XBS = ccb_pose_translation(ccb_v3(s->xh - s->d, 0, 0));
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

/* ---- standard studies: the spatula's angle against Lagged at dt / 10 ------------------------- */

static double spatula_std_error(const run_record* r, const run_record* ref, const double* P) {
    (void)P;
    if (ref == NULL || r->status != CCB_OK || ref->status != CCB_OK || r->nsteps < 1) {
        return NAN;
    }
    /* RMS over the run's grid of theta - theta_ref (the reference on a grid dt / 10 finer) */
    const long ratio = lround(r->cfg.sim.dt / ref->cfg.sim.dt);
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
     .title = "force command, angle and patch area over three periods of the square wave; every "
              "low phase against the rigid estimate",
     .figure = "PFC Fig. 10",
     .decl = &spatula_slip_study},
    {.name = "refinement",
     .title = "faces, candidate pairs, geometry and solver time against four mesh refinements, "
              "polygons and triangles; the outcome at each",
     .figure = "PFC Figs. 8-9",
     .decl = &spatula_refinement_study},
    {.name = "sensitivity",
     .title = "every gate of the slip study against a doubled modulus, a 15 % friction error "
              "either way and a doubled dissipation",
     .figure = "ccb (the gates' sensitivity)",
     .decl = &spatula_sensitivity_study}};

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
