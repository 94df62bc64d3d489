/* A program outside the ccb tree that uses the installed library (CI/install_test.sh): a sphere
 * dropped on a plane, 200 steps of Lagged; prints the version macros and the resting height. */
#include <math.h>
#include <stdio.h>

#include <ccb/ccb.h>

int main(void) {
    printf("ccb %d.%d.%d (headers), %s (library)\n", CCB_VERSION_MAJOR, CCB_VERSION_MINOR,
           CCB_VERSION_PATCH, ccb_version());
    ccb_model* m = NULL;
    if (ccb_model_create(&m) != CCB_OK) {
        return 1;
    }
    ccb_body_def ground = ccb_body_def_default();
    ground.name = "ground";
    ground.mobilizer = CCB_MOBILIZER_FIXED;
    int g, b;
    ccb_model_add_body(m, &ground, &g);
    ccb_shape_def plane = ccb_shape_def_default();
    plane.material = (ccb_material){INFINITY, 0, 0, 0.5, 0.0};
    ccb_model_add_shape(m, g, &plane, NULL);
    ccb_body_def ball = ccb_body_def_default();
    ball.name = "ball";
    ball.mass = 0.5;
    ball.pose = ccb_pose_planar(0, 0.1, 0);
    ccb_model_add_body(m, &ball, &b);
    ccb_shape_def sphere = ccb_shape_def_default();
    sphere.type = CCB_SHAPE_SPHERE;
    sphere.radius = 0.05;
    sphere.material = (ccb_material){1e5, 1.0, 0, 0.5, 0.0};
    ccb_model_add_shape(m, b, &sphere, NULL);
    char msg[256];
    ccb_sim_params p = ccb_sim_params_default();
    p.dt = 1e-3;
    ccb_sim* sim = NULL;
    if (ccb_model_finalize(m) != CCB_OK || ccb_sim_create(m, &p, &sim, msg, sizeof msg) != CCB_OK) {
        fprintf(stderr, "consumer: %s\n", msg);
        return 1;
    }
    for (int k = 0; k < 500; ++k) {
        if (ccb_sim_step(sim) != CCB_OK) {
            fprintf(stderr, "consumer: %s\n", ccb_sim_last_error(sim));
            return 1;
        }
    }
    const double z = ccb_sim_q(sim)[1];
    printf("z after 0.5 s: %.6f m (rest: %.6f)\n", z, 0.05 - 0.5 * 9.81 / 1e5);
    ccb_sim_destroy(sim);
    ccb_model_destroy(m);
    /* at rest on the plane: z = R - m g / k [m] to 1e-4 (the drop's bounce has died out) */
    return fabs(z - (0.05 - 0.5 * 9.81 / 1e5)) < 1e-4 ? 0 : 1;
}
