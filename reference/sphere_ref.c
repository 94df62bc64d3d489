/* Falling sphere, closed forms (spec: cases.md §4.2).
 *
 * Free fall from gap h = z0 - R: t_c = sqrt(2h/g), v_imp = sqrt(2 g h). While sliding the friction
 * impulse is mu times the normal impulse, and the total normal impulse up to time t after landing
 * equals m g t (vertical momentum is zero at release and after landing), so the slip speed
 * s = u - omega R falls as s(t) = U0 - (1 + m R^2/I) mu g t, whatever the drop height: rolling
 * starts at t_r = U0 / ((1 + m R^2/I) mu g) after release, provided the impact alone does not end
 * the slip (the impact changes s by -(1 + m R^2/I) mu v_imp). Angular momentum about the contact
 * point is conserved by every contact impulse and by gravity, so the final rolling speed is
 * u = U0 / (1 + I/(m R^2)) (5/7 U0 for a solid sphere). */
#include <math.h>
#include <stdio.h>

#include "reference.h"

int ccb_ref_sphere_solve(const ccb_ref_sphere* p, ccb_ref_sphere_result* r, char* msg,
                         size_t msgn) {
    if (!(p->R > 0 && p->m > 0 && p->I > 0 && p->z0 > p->R && p->U0 > 0 && p->mu > 0 && p->g > 0)) {
        snprintf(msg, msgn, "sphere reference needs R, m, I, U0, mu, g > 0 and z0 > R");
        return -1;
    }
    const double h = p->z0 - p->R;
    const double c = 1.0 + p->m * p->R * p->R / p->I;
    r->t_contact = sqrt(2.0 * h / p->g);
    r->v_impact = sqrt(2.0 * p->g * h);
    r->slip_after_impact = p->U0 - c * p->mu * r->v_impact;
    r->t_roll = p->U0 / (c * p->mu * p->g);
    r->u_final = p->U0 / (1.0 + p->I / (p->m * p->R * p->R));
    r->omega_final = r->u_final / p->R;
    if (r->slip_after_impact <= 0) {
        snprintf(msg, msgn, "sphere reference: the impact alone ends the slip (s = %g m/s)",
                 r->slip_after_impact);
        return -1;
    }
    return 0;
}
