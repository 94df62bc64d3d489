/* ccb/ccb.h — umbrella header of libccb, the ccb contact-solver library. */
#ifndef CCB_CCB_H
#define CCB_CCB_H

#include "ccb/alloc.h"
#include "ccb/approx.h"
#include "ccb/friction.h"
#include "ccb/geometry.h"
#include "ccb/hydro.h"
#include "ccb/math.h"
#include "ccb/model.h"
#include "ccb/names.h"
#include "ccb/newton.h"
#include "ccb/ode.h"
#include "ccb/problem.h"
#include "ccb/record.h"
#include "ccb/sim.h"
#include "ccb/status.h"
#include "ccb/tamsi.h"

#endif
