//! # 8. Joints and fracture
//!
//! A joint ([`Joint`](crate::rigid::Joint)) holds two bodies, or a body and the world, in a
//! relation; [`RigidWorld::add_joint(a, b, joint)`](crate::rigid::RigidWorld::add_joint) adds
//! it between body `a` (`None`: the world) and body `b`, wakes both, and returns a
//! [`JointHandle`](crate::rigid::JointHandle). Joints are solved by the same soft, substepped
//! solver as the contacts, in the same sweeps, on both backends in the same order (Box2D v3's
//! constraint graph: a joint takes a manifold slot after the contacts, and the colouring batches
//! joints and contacts that share no moving body).
//!
//! ## Kinds
//!
//! | constructor | holds | options |
//! |---|---|---|
//! | [`Joint::ball(anchor)`](crate::rigid::Joint::ball) | the anchors together; free to turn | a cone ([`with_cone`](crate::rigid::Joint::with_cone)) and twist limits ([`with_twist`](crate::rigid::Joint::with_twist)) about its x axis ([`with_axis`](crate::rigid::Joint::with_axis)) |
//! | [`Joint::hinge(anchor, axis)`](crate::rigid::Joint::hinge) | the anchors together; turns about `axis` only | angle limits (rad), a motor, a spring |
//! | [`Joint::fixed(anchor)`](crate::rigid::Joint::fixed) | no relative motion (a weld) | |
//! | [`Joint::slider(anchor, axis)`](crate::rigid::Joint::slider) | moves along `axis` only, without turning | position limits (m), a motor, a spring |
//! | [`Joint::distance(a, b)`](crate::rigid::Joint::distance) | a rod: the anchors' distance at creation | length limits, a motor, a spring |
//! | [`Joint::rope(a, b, length)`](crate::rigid::Joint::rope) | at most `length` apart, closer freely | as a distance joint |
//!
//! Limits ([`with_limits`](crate::rigid::Joint::with_limits)), motors
//! ([`with_motor(speed, max_force)`](crate::rigid::Joint::with_motor): rad/s and N·m, or m/s
//! and N; speed 0 with a small force is joint friction) and springs
//! ([`with_spring(hertz, damping_ratio, target)`](crate::rigid::Joint::with_spring)) act on the
//! joint's coordinate, [`JointState::coordinate`](crate::rigid::JointState::coordinate): a
//! hinge's angle, a slider's position, a distance joint's length. An option that makes no
//! sense for the kind (limits on a ball joint, a motor on a weld) is refused when the joint is
//! added. A spring between two points is a distance joint whose limits leave it room: without
//! [`with_limits`](crate::rigid::Joint::with_limits) a distance joint is a rod, which would hold
//! the spring at its length.
//!
//! ```
//! use glam::Vec3;
//! use wgphys::Backend;
//! use wgphys::rigid::{Collider, Joint, RigidBody, RigidConfig, RigidWorld};
//!
//! let mut world = RigidWorld::new(Backend::Cpu, RigidConfig::default())?;
//! // A carriage on a vertical rail: it falls 0.5 m and stops at the rail's end.
//! let carriage = world.add_body(
//!     RigidBody::dynamic().position(Vec3::new(0.0, 2.0, 0.0)).mass(5.0),
//!     &[Collider::cuboid(Vec3::splat(0.1))],
//! )?;
//! let rail = world.add_joint(
//!     None,
//!     carriage,
//!     Joint::slider(Vec3::new(0.0, 2.0, 0.0), Vec3::Y).with_limits(-0.5, 0.0),
//! )?;
//! // A spring: a bob 1.2 m below a point, pulled to 1 m at 2 Hz, free between 0 and 3 m.
//! let bob = world.add_body(
//!     RigidBody::dynamic().position(Vec3::new(2.0, 1.8, 0.0)),
//!     &[Collider::sphere(0.1)],
//! )?;
//! let spring = Joint::distance(Vec3::new(2.0, 3.0, 0.0), Vec3::new(2.0, 1.8, 0.0))
//!     .with_limits(0.0, 3.0)
//!     .with_spring(2.0, 0.5, 1.0);
//! world.add_joint(None, bob, spring)?;
//! for _ in 0..60 {
//!     world.step(1.0 / 60.0)?;
//! }
//! let state = world.joint_state(rail)?;
//! assert!((state.coordinate + 0.5).abs() < 1e-3); // at the lower limit
//! assert!(state.angular_error < 1e-3); // and not turned
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! Every joint has, besides,
//! [`with_breaking(force, torque)`](crate::rigid::Joint::with_breaking),
//! [`with_softness(hertz, damping_ratio)`](crate::rigid::Joint::with_softness) and
//! [`collide_connected`](crate::rigid::Joint::collide_connected), below. Between steps,
//! [`set_joint_limits`](crate::rigid::RigidWorld::set_joint_limits),
//! [`set_joint_motor`](crate::rigid::RigidWorld::set_joint_motor),
//! [`set_joint_spring`](crate::rigid::RigidWorld::set_joint_spring),
//! [`set_joint_enabled`](crate::rigid::RigidWorld::set_joint_enabled) and
//! [`set_joint_collide_connected`](crate::rigid::RigidWorld::set_joint_collide_connected) change
//! a joint and wake its bodies; [`remove_joint`](crate::rigid::RigidWorld::remove_joint) frees
//! its slot, and removing a body removes its joints.
//!
//! ## Placement: world space or body frames
//!
//! A joint has a frame on each body: an anchor point and a rotation whose x axis is the joint's
//! axis. The constructors take them **in world space**: when the joint is added, the world
//! converts the anchor and axis into each body's frame at the bodies' current poses (on the GPU
//! after reading the bodies back, if the world has stepped: a blocking read). So the two frames
//! coincide when the joint is made, and a hinge's angle and a slider's position start at 0.
//! Build the bodies in the pose you want as the joint's rest, then add the joints.
//! [`with_axis`](crate::rigid::Joint::with_axis) turns a world-placed joint's frame (a ball
//! joint's cone axis), and [`transformed(at, rotation)`](crate::rigid::Joint::transformed)
//! moves a joint written in a model's own coordinates to where the model is placed.
//!
//! [`in_body_frames(anchor_a, rot_a, anchor_b, rot_b)`](crate::rigid::Joint::in_body_frames)
//! places it **in each body's own frame** instead: each anchor relative to its body's origin
//! (its position), each rotation in its body's frame (for the world, the world's), the axis being each
//! frame's x axis. Use it when you know where the joint sits on each body (a skeleton's bone
//! ends) regardless of where the bodies are now. The kind still comes from the constructor,
//! whose world-space arguments are then ignored, and `with_axis` and `transformed` no longer
//! apply. If the frames do not coincide when the joint is added, the joint pulls the bodies
//! together over the next steps.
//!
//! ```
//! use glam::{Quat, Vec3};
//! use wgphys::Backend;
//! use wgphys::rigid::{Collider, Joint, RigidBody, RigidConfig, RigidWorld};
//!
//! let weightless = RigidConfig { gravity: Vec3::ZERO, ..RigidConfig::default() };
//! let mut world = RigidWorld::new(Backend::Cpu, weightless)?;
//! let half = Vec3::new(0.5, 0.05, 0.2);
//! let upper = world.add_body(RigidBody::fixed(), &[Collider::cuboid(half)])?;
//! // Turning at 1 rad/s about the point (0.5, 0, 0), where the joint will be.
//! let lower = world.add_body(
//!     RigidBody::dynamic()
//!         .position(Vec3::new(1.0, 0.0, 0.0))
//!         .velocity(Vec3::new(0.0, 0.5, 0.0))
//!         .angular_velocity(Vec3::Z),
//!     &[Collider::cuboid(half)],
//! )?;
//! // A knee about the bodies' z axes: the upper body's +x end meets the lower body's -x end.
//! let z_axis = Quat::from_rotation_arc(Vec3::X, Vec3::Z); // the frame's x axis along z
//! let knee = Joint::hinge(Vec3::ZERO, Vec3::X) // the world-space arguments are not used
//!     .in_body_frames(Vec3::new(0.5, 0.0, 0.0), z_axis, Vec3::new(-0.5, 0.0, 0.0), z_axis)
//!     .with_limits(0.0, 0.5);
//! let knee = world.add_joint(Some(upper), lower, knee)?;
//! for _ in 0..60 {
//!     world.step(1.0 / 60.0)?;
//! }
//! let state = world.joint_state(knee)?;
//! assert!((state.coordinate - 0.5).abs() < 0.01); // turned at 1 rad/s until the limit
//! assert!(state.linear_error < 1e-3); // the anchors stay together
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! ## Stiffness, and the stretch under load
//!
//! Each of a joint's rows is a soft constraint in the solver's biased sweeps (a spring of
//! [`RigidConfig::joint_hertz`](crate::rigid::RigidConfig::joint_hertz) with
//! [`joint_damping_ratio`](crate::rigid::RigidConfig::joint_damping_ratio), or the joint's own
//! [`with_softness`](crate::rigid::Joint::with_softness)) and rigid in the relax sweeps, and is
//! warm-started from the last step. The stiffness is capped at half the substep rate (the
//! contacts' at a quarter): rows stiffer than that diverge. `joint_hertz` defaults to
//! `f32::INFINITY`, that is, to the cap: 120 Hz at the default 4 substeps of a 1/60 s step.
//!
//! A soft row gives under a steady load. Under a force F it settles stretched by
//! **F/(m·ω²)**, m the row's effective mass and ω = 2π·hertz. For a heavy body hanging from the
//! world m is its own mass, and the stretch is g/ω², 17 µm at 120 Hz. For a heavy body hanging
//! from a light one, m is about the light body's mass, and the stretch grows with the mass
//! ratio: a 10 kg ball on a 0.1 kg link stretches that joint by 1.7 mm. Raising `joint_hertz`
//! past the cap changes nothing; what helps is more substeps
//! ([`RigidConfig::substeps`](crate::rigid::RigidConfig::substeps)): the cap, and so ω, doubles
//! with them, and the stretch falls fourfold. A chain of 50 links of 0.1 kg holding 2 kg hangs
//! 1.6% long at 4 substeps and 0.4% at 8 (`tests/rigid_joints.rs`). Lowering the stiffness
//! with `with_softness` makes a springy joint on purpose.
//!
//! ```
//! use glam::Vec3;
//! use wgphys::Backend;
//! use wgphys::rigid::{Collider, Joint, RigidBody, RigidConfig, RigidWorld};
//!
//! let mut stretch = Vec::new();
//! for substeps in [4, 8] {
//!     let config = RigidConfig { substeps, ..RigidConfig::default() };
//!     let mut world = RigidWorld::new(Backend::Cpu, config)?;
//!     let top = Vec3::new(0.0, 3.0, 0.0);
//!     let link = world.add_body(
//!         RigidBody::dynamic().position(top - Vec3::Y * 0.5).mass(0.1),
//!         &[Collider::capsule_y(0.45, 0.05)],
//!     )?;
//!     let ball = world.add_body(
//!         RigidBody::dynamic().position(top - Vec3::Y).mass(10.0),
//!         &[Collider::sphere(0.1)],
//!     )?;
//!     world.add_joint(None, link, Joint::ball(top))?;
//!     let hook = world.add_joint(Some(link), ball, Joint::ball(top - Vec3::Y))?;
//!     for _ in 0..120 {
//!         world.step(1.0 / 60.0)?;
//!     }
//!     let omega = 2.0 * std::f32::consts::PI * (60.0 * substeps as f32 / 2.0); // the cap
//!     let m = 1.0 / (1.0 / 0.1 + 1.0 / 10.0); // the row's effective mass
//!     let predicted = 10.0 * 9.81 / (m * omega * omega);
//!     let measured = world.joint_state(hook)?.linear_error;
//!     assert!((measured / predicted - 1.0).abs() < 0.05);
//!     stretch.push(measured);
//! }
//! assert!((stretch[0] / stretch[1] - 4.0).abs() < 0.2); // twice the substeps, a quarter
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! ## Breaking
//!
//! [`with_breaking(force, torque)`](crate::rigid::Joint::with_breaking) makes a joint break
//! when the force it applies exceeds `force` (N) or its torque exceeds `torque` (N·m); each
//! threshold must be positive, and `f32::INFINITY` is "never". After the substeps, stage
//! `joint_break` computes each joint's force and torque from its last substep's impulses,
//! which [`joint_feedback`](crate::rigid::RigidWorld::joint_feedback) reads for any joint (a
//! way to choose thresholds: watch the feedback under normal play). A broken joint stops
//! acting from the step it broke in; it stays in the world, with `broken_at` set in its
//! feedback, until you remove it, and
//! [`take_broken_joints`](crate::rigid::RigidWorld::take_broken_joints) hands it out once, a
//! frame or two late on the GPU ([`ch5_reading`](super::ch5_reading) has an example).
//! [`set_joint_enabled(h, false)`](crate::rigid::RigidWorld::set_joint_enabled) turns a joint
//! off without breaking it.
//!
//! ## The collision filter
//!
//! Bodies joined by a joint do not collide with each other: joined bodies usually overlap at
//! the joint (a ragdoll's limbs), and a contact there would fight the joint. Stage
//! `joint_slots_filter` empties the contacts between every pair of bodies an enabled joint
//! joins. [`collide_connected(true)`](crate::rigid::Joint::collide_connected) (or
//! [`set_joint_collide_connected`](crate::rigid::RigidWorld::set_joint_collide_connected))
//! lets a pair collide. A disabled or broken joint filters nothing: its bodies collide again.
//! The filter is for joints between two bodies; a joint to the world filters nothing either.
//! For filtering beyond joints, each
//! collider has group and mask bits ([`Collider::groups`](crate::rigid::Collider::groups)): two
//! colliders touch when each one's group meets the other's mask.
//!
//! ```
//! use glam::Vec3;
//! use wgphys::Backend;
//! use wgphys::rigid::{Collider, Joint, RigidBody, RigidConfig, RigidWorld};
//!
//! let contacts = |collide: bool| -> wgphys::Result<u32> {
//!     let weightless = RigidConfig { gravity: Vec3::ZERO, ..RigidConfig::default() };
//!     let mut world = RigidWorld::new(Backend::Cpu, weightless)?;
//!     let block = [Collider::cuboid(Vec3::splat(0.5))];
//!     let a = world.add_body(RigidBody::dynamic(), &block)?;
//!     let b = world.add_body(RigidBody::dynamic().position(Vec3::new(0.9, 0.0, 0.0)), &block)?;
//!     let weld = Joint::fixed(Vec3::new(0.45, 0.0, 0.0)).collide_connected(collide);
//!     world.add_joint(Some(a), b, weld)?;
//!     Ok(world.step(1.0 / 60.0)?.manifolds) // contact manifolds (a joint's slot is not one)
//! };
//! assert_eq!(contacts(false)?, 0); // overlapping by 0.1 m, but joined: no contact
//! assert_eq!(contacts(true)?, 1);
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! ## Fracture
//!
//! [`RigidBody::breakable(impulse, burst)`](crate::rigid::RigidBody::breakable) makes a
//! dynamic body with one box collider at its centre breakable (anything else is refused): when
//! a contact strikes it with more than `impulse` (N·s, the contact's normal impulses summed over
//! the step's substeps), the world splits it as the book's fracture demo does, into 8 boxes.
//! The axis closest to the contact's normal is cut in half and the other two at the struck
//! point (kept within the middle 80% of the box, so no piece is a sliver). Each piece has the
//! block's density times its volume as its mass, moves with the block's motion at its centre
//! plus a burst of `burst` m/s away from the struck point, less the pieces' mean burst, so the
//! pieces together keep the block's mass and linear momentum; they keep its orientation, spin,
//! damping, acceleration, material and collision groups. Pieces whose smallest half size is at
//! least 5 cm (`rigid::fracture::MIN_PIECE_HALF`) break again under
//! the same impulse.
//!
//! The block is removed (its handle goes stale) and the pieces are ordinary bodies.
//! [`take_fractures`](crate::rigid::RigidWorld::take_fractures) hands each split out once as a
//! [`Fracture`](crate::rigid::Fracture): the block's handle, the pieces' handles, the struck
//! point, the impulse, the step and the block's last state. On the GPU the split happens when
//! the step's report lands, a frame or two late, after a blocking read of the block
//! ([`ch5_reading`](super::ch5_reading)). While a world holds no breakable body, the stage does
//! not run at all.
//!
//! ```
//! use glam::Vec3;
//! use wgphys::Backend;
//! use wgphys::rigid::{Collider, RigidBody, RigidConfig, RigidWorld};
//!
//! let weightless = RigidConfig { gravity: Vec3::ZERO, ..RigidConfig::default() };
//! let mut world = RigidWorld::new(Backend::Cpu, weightless)?;
//! let block = world.add_body(
//!     RigidBody::dynamic().mass(500.0).breakable(150.0, 3.0),
//!     &[Collider::cuboid(Vec3::splat(1.5))],
//! )?;
//! // The book's shot: 5 kg at 40 m/s, 200 N·s of momentum.
//! world.add_body(
//!     RigidBody::dynamic()
//!         .position(Vec3::new(-2.5, 0.3, 0.2))
//!         .velocity(Vec3::X * 40.0)
//!         .mass(5.0)
//!         .ccd(true),
//!     &[Collider::sphere(0.25)],
//! )?;
//! let mut splits = Vec::new();
//! for _ in 0..10 {
//!     world.step(1.0 / 60.0)?;
//!     splits.extend(world.take_fractures());
//! }
//! assert_eq!(splits.len(), 1);
//! assert_eq!(splits[0].body, block);
//! assert_eq!(splits[0].pieces.len(), 8);
//! assert!(!world.contains(block));
//! let mass: f32 = splits[0].pieces.iter().map(|&p| world.body(p).unwrap().mass).sum();
//! assert!((mass - 500.0).abs() < 0.1);
//! # Ok::<(), wgphys::Error>(())
//! ```
