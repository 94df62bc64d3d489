// bullet_module — the Bullet side of ccb's Bullet peer (bullet_module.h says what it exposes;
// bullet_peer.c says the mapping). Bullet 3.24 in double precision (Debian's *-float64 libraries):
// a btDiscreteDynamicsWorld with Bullet's sequential-impulse solver, or its MLCP solver with the
// Dantzig LCP; rigid bodies of compound shapes; every contact point's friction, stiffness and
// damping set from ccb's pair material when Bullet adds the point (gContactAddedCallback and
// CF_CUSTOM_MATERIAL_CALLBACK, with BT_CONTACT_FLAG_CONTACT_STIFFNESS_DAMPING: Bullet then solves
// the point as a spring-damper, ERP = dt k / (dt k + kd), CFM = 1 / (dt k + kd)).
#include "bullet_module.h"

#include <btBulletDynamicsCommon.h>

#include <BulletDynamics/MLCPSolvers/btDantzigSolver.h>
#include <BulletDynamics/MLCPSolvers/btMLCPSolver.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <new>
#include <vector>

namespace {

struct Body {
    int kind = CCB_BT_STATIC;
    double mass = 0;
    btVector3 inertia{0, 0, 0};
    btTransform pose;
    btVector3 lin{1, 1, 1}, ang{1, 1, 1};
    // the shapes of the body and the ccb shape each stands for
    std::vector<std::unique_ptr<btCollisionShape>> shapes;
    std::vector<btTransform> local;
    std::vector<int> shape_of;
    std::unique_ptr<btCompoundShape> compound;
    std::unique_ptr<btCollisionObject> object; // a btRigidBody for dynamic and kinematic ones
    btRigidBody* rigid = nullptr;
};

} // namespace

struct ccb_bt_world {
    ccb_bt_callbacks cb{};
    double dt = 0;
    int solver = CCB_BT_SEQUENTIAL_IMPULSE;
    std::vector<Body> bodies;
    btDefaultCollisionConfiguration config;
    std::unique_ptr<btCollisionDispatcher> dispatcher;
    std::unique_ptr<btDbvtBroadphase> broadphase;
    std::unique_ptr<btDantzigSolver> dantzig;
    std::unique_ptr<btConstraintSolver> constraint_solver;
    std::unique_ptr<btDiscreteDynamicsWorld> world;
    std::unique_ptr<btOverlapFilterCallback> filter;
    std::vector<std::unique_ptr<btTypedConstraint>> joints;
    btEmptyShape empty; // the shape of a moving body without shapes (it touches nothing)
};

namespace {

// the world whose step is running in this thread (Bullet's contact-added callback is global)
thread_local ccb_bt_world* t_world = nullptr;

int body_of(const btCollisionObject* o) {
    return o->getUserIndex();
}

// the ccb shape of a contact's side: the compound's child (index), or the body's one shape
int shape_of(const ccb_bt_world* w, const btCollisionObjectWrapper* wrap, int index) {
    const Body& b = w->bodies[static_cast<size_t>(body_of(wrap->getCollisionObject()))];
    if (b.shape_of.size() == 1 || index < 0 || static_cast<size_t>(index) >= b.shape_of.size()) {
        return b.shape_of[0];
    }
    return b.shape_of[static_cast<size_t>(index)];
}

bool contact_added(btManifoldPoint& cp, const btCollisionObjectWrapper* w0, int, int index0,
                   const btCollisionObjectWrapper* w1, int, int index1) {
    const ccb_bt_world* w = t_world;
    if (w == nullptr) {
        return false;
    }
    double k = INFINITY, kd = 0, mu = 0;
    w->cb.pair_material(w->cb.user, shape_of(w, w0, index0), shape_of(w, w1, index1), &k, &kd, &mu);
    cp.m_combinedFriction = mu;
    cp.m_combinedRestitution = 0;
    if (std::isfinite(k)) {
        cp.m_combinedContactStiffness1 = k;
        cp.m_combinedContactDamping1 = kd;
        cp.m_contactPointFlags |= BT_CONTACT_FLAG_CONTACT_STIFFNESS_DAMPING;
    }
    return true;
}

// ccb's pair rule decides which bodies' shapes are tested at all
struct Filter : btOverlapFilterCallback {
    ccb_bt_world* w;
    explicit Filter(ccb_bt_world* world) : w(world) {
    }
    bool needBroadphaseCollision(btBroadphaseProxy* p0, btBroadphaseProxy* p1) const override {
        const auto* o0 = static_cast<const btCollisionObject*>(p0->m_clientObject);
        const auto* o1 = static_cast<const btCollisionObject*>(p1->m_clientObject);
        const Body& b0 = w->bodies[static_cast<size_t>(body_of(o0))];
        const Body& b1 = w->bodies[static_cast<size_t>(body_of(o1))];
        if (b0.shape_of.empty() || b1.shape_of.empty()) {
            return false;
        }
        return w->cb.pair_active(w->cb.user, b0.shape_of[0], b1.shape_of[0]) != 0;
    }
};

btQuaternion quat_in(const double q[4]) {
    return btQuaternion(q[1], q[2], q[3], q[0]);
}

const char* version() {
    static char v[16];
    std::snprintf(v, sizeof v, "%d.%02d", btGetVersion() / 100, btGetVersion() % 100);
    return v;
}

ccb_bt_world* create(const double g[3], int solver, double dt, const ccb_bt_callbacks* cb,
                     char* msg, size_t n) {
    auto* w = new (std::nothrow) ccb_bt_world;
    if (w == nullptr) {
        std::snprintf(msg, n, "Bullet: out of memory");
        return nullptr;
    }
    w->cb = *cb;
    w->dt = dt;
    w->solver = solver;
    w->dispatcher.reset(new btCollisionDispatcher(&w->config));
    w->broadphase.reset(new btDbvtBroadphase());
    if (solver == CCB_BT_MLCP_DANTZIG) {
        w->dantzig.reset(new btDantzigSolver());
        w->constraint_solver.reset(new btMLCPSolver(w->dantzig.get()));
    } else {
        w->constraint_solver.reset(new btSequentialImpulseConstraintSolver());
    }
    w->world.reset(new btDiscreteDynamicsWorld(w->dispatcher.get(), w->broadphase.get(),
                                               w->constraint_solver.get(), &w->config));
    w->world->setGravity(btVector3(g[0], g[1], g[2]));
    if (solver == CCB_BT_MLCP_DANTZIG) { // Bullet's MLCP demos: one island batch per solve
        w->world->getSolverInfo().m_minimumSolverBatchSize = 1;
    }
    w->filter.reset(new Filter(w));
    w->world->getPairCache()->setOverlapFilterCallback(w->filter.get());
    gContactAddedCallback = contact_added;
    return w;
}

int add_body(ccb_bt_world* w, int kind, double mass, const double inertia[3], const double pos[3],
             const double quat[4], const double lin[3], const double ang[3]) {
    Body b;
    b.kind = kind;
    b.mass = mass;
    b.inertia = btVector3(inertia[0], inertia[1], inertia[2]);
    b.pose = btTransform(quat_in(quat), btVector3(pos[0], pos[1], pos[2]));
    b.lin = btVector3(lin[0], lin[1], lin[2]);
    b.ang = btVector3(ang[0], ang[1], ang[2]);
    w->bodies.push_back(std::move(b));
    return static_cast<int>(w->bodies.size()) - 1;
}

int add_shape(ccb_bt_world* w, int body, int type, const double size[4], const double pos[3],
              const double quat[4], int shape, char* msg, size_t n) {
    Body& b = w->bodies[static_cast<size_t>(body)];
    btCollisionShape* s = nullptr;
    if (type == CCB_BT_SPHERE) {
        s = new btSphereShape(size[0]);
    } else if (type == CCB_BT_BOX) {
        s = new btBoxShape(btVector3(size[0], size[1], size[2]));
    } else if (type == CCB_BT_CAPSULE_X) {
        s = new btCapsuleShapeX(size[0], 2 * size[1]);
    } else if (type == CCB_BT_PLANE && b.kind == CCB_BT_STATIC) {
        s = new btStaticPlaneShape(btVector3(size[0], size[1], size[2]), size[3]);
    } else {
        std::snprintf(msg, n, "Bullet: a plane belongs to a static body");
        return -1;
    }
    b.shapes.emplace_back(s);
    b.local.emplace_back(quat_in(quat), btVector3(pos[0], pos[1], pos[2]));
    b.shape_of.push_back(shape);
    return 0;
}

int finish(ccb_bt_world* w, char* msg, size_t n) {
    for (size_t i = 0; i < w->bodies.size(); ++i) {
        Body& b = w->bodies[i];
        if (b.shapes.empty() && b.kind == CCB_BT_STATIC) {
            continue;
        }
        if (b.kind == CCB_BT_STATIC) { // one static object per shape, in the world frame
            if (b.shapes.size() != 1) {
                std::snprintf(msg, n, "Bullet: a static body takes one shape");
                return -1;
            }
            b.object.reset(new btCollisionObject());
            b.object->setCollisionShape(b.shapes[0].get());
            b.object->setWorldTransform(b.local[0]);
        } else {
            btCollisionShape* shape = &w->empty; // a body without shapes: a joint's parent
            if (!b.shapes.empty()) {
                b.compound.reset(new btCompoundShape(false, static_cast<int>(b.shapes.size())));
                for (size_t k = 0; k < b.shapes.size(); ++k) {
                    b.compound->addChildShape(b.local[k], b.shapes[k].get());
                }
                shape = b.compound.get();
            }
            const double mass = b.kind == CCB_BT_KINEMATIC ? 0.0 : b.mass;
            btRigidBody::btRigidBodyConstructionInfo info(
                mass, nullptr, shape, b.kind == CCB_BT_KINEMATIC ? btVector3(0, 0, 0) : b.inertia);
            info.m_startWorldTransform = b.pose;
            info.m_friction = 0; // every point's friction comes from the pair (contact_added)
            auto* rb = new btRigidBody(info);
            if (b.kind == CCB_BT_KINEMATIC) {
                rb->setCollisionFlags(rb->getCollisionFlags() |
                                      btCollisionObject::CF_KINEMATIC_OBJECT);
            } else {
                rb->setLinearFactor(b.lin);
                rb->setAngularFactor(b.ang);
            }
            rb->setActivationState(DISABLE_DEACTIVATION); // no sleeping: every step is solved
            b.rigid = rb;
            b.object.reset(rb);
        }
        b.object->setUserIndex(static_cast<int>(i));
        b.object->setCollisionFlags(b.object->getCollisionFlags() |
                                    btCollisionObject::CF_CUSTOM_MATERIAL_CALLBACK);
        if (b.rigid) {
            w->world->addRigidBody(b.rigid);
        } else {
            w->world->addCollisionObject(b.object.get());
        }
    }
    return 0;
}

void set_state(ccb_bt_world* w, int body, const double pos[3], const double quat[4],
               const double v[3], const double omega[3]) {
    Body& b = w->bodies[static_cast<size_t>(body)];
    if (b.rigid == nullptr) {
        return;
    }
    const btTransform X(quat_in(quat), btVector3(pos[0], pos[1], pos[2]));
    b.rigid->setWorldTransform(X);
    if (b.kind == CCB_BT_KINEMATIC) {
        // Bullet does not move a kinematic body; it takes its velocity from the change of its
        // transform (btRigidBody::saveKinematicState): from pos - dt v to pos, which is v. The
        // body stays at pos over the step that follows: pos is where the step starts (the pose at
        // its end less dt v, as the other engines' prescribed bodies start), so a joint to it
        // starts without an error of v dt
        btTransform X0 = X;
        X0.setOrigin(X.getOrigin() - btVector3(v[0], v[1], v[2]) * w->dt);
        b.rigid->setInterpolationWorldTransform(X0);
    } else {
        b.rigid->setInterpolationWorldTransform(X);
    }
    b.rigid->setLinearVelocity(btVector3(v[0], v[1], v[2]));
    b.rigid->setAngularVelocity(btVector3(omega[0], omega[1], omega[2]));
    b.rigid->setInterpolationLinearVelocity(btVector3(v[0], v[1], v[2]));
    b.rigid->setInterpolationAngularVelocity(btVector3(omega[0], omega[1], omega[2]));
}

void get_state(const ccb_bt_world* w, int body, double pos[3], double quat[4], double v[3],
               double omega[3]) {
    const Body& b = w->bodies[static_cast<size_t>(body)];
    const btTransform& X = b.object->getWorldTransform();
    const btQuaternion q = X.getRotation();
    for (int k = 0; k < 3; ++k) {
        pos[k] = X.getOrigin()[k];
        v[k] = b.rigid ? b.rigid->getLinearVelocity()[k] : 0.0;
        omega[k] = b.rigid ? b.rigid->getAngularVelocity()[k] : 0.0;
    }
    quat[0] = q.w();
    quat[1] = q.x();
    quat[2] = q.y();
    quat[3] = q.z();
}

void step(ccb_bt_world* w, ccb_bt_stats* st, double* f_body) {
    *st = ccb_bt_stats{};
    t_world = w;
    // maxSubSteps 0: one step of exactly dt, without Bullet's interpolation
    w->world->stepSimulation(w->dt, 0, w->dt);
    t_world = nullptr;
    st->iterations =
        w->solver == CCB_BT_MLCP_DANTZIG ? 0 : w->world->getSolverInfo().m_numIterations;
    if (f_body) {
        for (size_t i = 0; i < 3 * w->bodies.size(); ++i) {
            f_body[i] = 0;
        }
    }
    btDispatcher* d = w->world->getDispatcher();
    for (int m = 0; m < d->getNumManifolds(); ++m) {
        const btPersistentManifold* man = d->getManifoldByIndexInternal(m);
        const int a = body_of(man->getBody0()), bb = body_of(man->getBody1());
        for (int c = 0; c < man->getNumContacts(); ++c) {
            const btManifoldPoint& p = man->getContactPoint(c);
            st->ncon++;
            if (p.getDistance() < 0) {
                st->npen++;
                st->pen_mean -= p.getDistance();
                st->pen_max = std::fmax(st->pen_max, -p.getDistance());
            }
            // the impulses act on body 0 along the normal (which points from 1 to 0) and the
            // friction directions, on body 1 opposite
            const btVector3 J = p.m_normalWorldOnB * p.getAppliedImpulse() +
                                p.m_lateralFrictionDir1 * p.m_appliedImpulseLateral1 +
                                p.m_lateralFrictionDir2 * p.m_appliedImpulseLateral2;
            st->fn_sum += p.getAppliedImpulse() / w->dt;
            if (f_body) {
                for (int k = 0; k < 3; ++k) {
                    f_body[3 * a + k] += J[k] / w->dt;
                    f_body[3 * bb + k] -= J[k] / w->dt;
                }
            }
        }
    }
    st->pen_mean = st->npen ? st->pen_mean / st->npen : 0.0;
}

void destroy(ccb_bt_world* w) {
    if (w == nullptr) {
        return;
    }
    for (auto& j : w->joints) { // out of the world before the bodies they join
        w->world->removeConstraint(j.get());
    }
    w->joints.clear();
    for (Body& b : w->bodies) { // out of the world before the objects go
        if (b.rigid) {
            w->world->removeRigidBody(b.rigid);
        } else if (b.object) {
            w->world->removeCollisionObject(b.object.get());
        }
    }
    w->world.reset();
    w->bodies.clear();
    delete w;
}

void add_load(ccb_bt_world* w, int body, const double f[3], const double tau[3]) {
    const Body& b = w->bodies[static_cast<size_t>(body)];
    if (b.rigid != nullptr && b.kind == CCB_BT_DYNAMIC) {
        // m_totalForce and m_totalTorque, which stepSimulation integrates and then clears
        b.rigid->applyCentralForce(btVector3(f[0], f[1], f[2]));
        b.rigid->applyTorque(btVector3(tau[0], tau[1], tau[2]));
    }
}

int add_slider(ccb_bt_world* w, int body, int parent, const double axis[3], char* msg, size_t n) {
    const size_t nb = w->bodies.size();
    btRigidBody* rb =
        static_cast<size_t>(body) < nb ? w->bodies[static_cast<size_t>(body)].rigid : nullptr;
    btRigidBody* ra = parent >= 0 && static_cast<size_t>(parent) < nb
                          ? w->bodies[static_cast<size_t>(parent)].rigid
                          : nullptr;
    if (rb == nullptr || (parent >= 0 && ra == nullptr)) {
        std::snprintf(msg, n, "Bullet: a slider joins moving bodies");
        return -1;
    }
    // the joint frame: at the body's centre, its x axis (the slider's) along `axis`
    const btVector3 a(axis[0], axis[1], axis[2]);
    // (shortestArcQuat turns about any normal of x when a is -x)
    const btTransform J(shortestArcQuat(btVector3(1, 0, 0), a), rb->getCenterOfMassPosition());
    const btTransform inB = rb->getCenterOfMassTransform().inverse() * J;
    btSliderConstraint* c =
        ra ? new btSliderConstraint(*ra, *rb, ra->getCenterOfMassTransform().inverse() * J, inB,
                                    true)
           : new btSliderConstraint(*rb, inB, true);
    // Bullet's defaults hold the rotation about the axis (angular limits 0, 0) and leave the
    // translation free (lower limit above the upper)
    w->joints.emplace_back(c);
    w->world->addConstraint(c, false); // the bodies may touch: ccb's pair rule (Filter) decides
    return 0;
}

const ccb_bt_api k_api = {CCB_BT_ABI, version,   create, add_body, add_shape, finish,
                          set_state,  get_state, step,   destroy,  add_load,  add_slider};

} // namespace

extern "C" __attribute__((visibility("default"))) const ccb_bt_api* ccb_bullet_module(void) {
    return &k_api;
}
