//! The depth collider, GPU against the CPU twin: the same depth image on both backends (the
//! texture holds the host's values bit for bit, read back to check), particles falling on it,
//! bouncing, sliding, coming to rest, or dying where they land; every field of every slot
//! compared every step with a running bound from the error model (tests/common/error_model.rs),
//! in both of the twin's roundings.
//!
//! **The image.** Its depths are exactly affine in the texel centres' clip coordinates,
//! α + β·x + γ·y with α, β, γ on the 2⁻¹⁶ grid, so every value is exact in f32 (the products
//! land on the 2⁻²⁴ grid below 1) and the texture is written by a fragment shader that computes
//! the same exact value. A depth affine in screen space is a plane in the world (a projective
//! map keeps planes), so every texel's exactly unprojected point lies on one plane Π: which
//! texel a particle reads changes its contact only by the unprojection's rounding. The slopes
//! β and γ differ, so an image read transposed or upside down would give another plane.
//!
//! **What may differ** (model 1 per evaluation, summed along each particle's trajectory as the
//! twin ran it; [`Running`]): the integration's roundings as in the step model; the
//! unprojection of a texel, bounded by evaluating its four-term sums in every order, each
//! product rounded or fused (all a compiler may do with `inv_view_proj * vec4(c, d, 1)`), then
//! the division's 2.5 ulp ([`TexelPoint`]); the normal from three such points ([`texel_normal`]);
//! the penetration against any texel next to the twin's (the GPU's position may project to a
//! neighbour); the contact response of `resolve_contact`, in the normal and tangential parts of
//! the fixed plane's frame, so that a resting particle (friction holding it, the normal velocity
//! clamped at 0) does not carry its velocity's difference on, and a sliding one carries the
//! normal part's into the tangential one once per step (the friction's reach μ(1 + e)·|vn|).
//!
//! **Decisions.** The contact test (penetration > −reach), the approach test (v·n < 0) and the
//! kill are decided the same way on both sides when the twin's value is farther from its
//! threshold than the running bound; the test asserts that for every evaluation of the scene
//! (a scene where one is not would be changed, not the bound), so the counters and ids must
//! match exactly.

use super::*;
use common::error_model::cost::{CONTRACT, DOT3, ROUND};
use common::error_model::{contact_response, step_model, STEP_V, UNIT_ROUNDOFF as U};
use glam::{DVec3, IVec2, Vec2, Vec4Swizzles};
use std::collections::HashMap;
use wgphys::particles::depth::{depth_contact, GpuDepth};
use wgphys::particles::Snapshot;
use wgphys::CpuRounding;

/// The camera here: 60°, near plane 1 m, far 50 m, from (0, 5, 7) towards the origin. The
/// unprojection's last row cancels about (distance / near)-fold, so its rounding reaches the
/// surface points that much amplified: the closed-form tests' near plane of 0.1 m at 13 m
/// (130-fold) leaves each point ~1.3e-4 m and each normal ~8e-3 rad to rounding, which decides
/// most contacts; this one, 8.6 m away, a tenth of that.
fn parity_view_proj() -> Mat4 {
    glam::camera::rh::proj::directx::perspective(60f32.to_radians(), 1.0, 1.0, 50.0)
        * glam::camera::rh::view::look_at_mat4(Vec3::new(0.0, 5.0, 7.0), Vec3::ZERO, Vec3::Y)
}

/// The image's α, β, γ in units of 2⁻¹⁶: near the plane y = 0.3·x seen by [`parity_view_proj`]
/// (whose depth is 0.90179 − 0.035348·x + 0.095879·y).
const ALPHA: i32 = 59100;
/// Texels per row and column. A point's rounding turns the normal by about its size over a
/// texel's width, so a coarse image (14 cm texels here) keeps the normal's difference small;
/// the closed-form tests' 256² drawn plane is a renderer's resolution.
const IMAGE: u32 = 64;
const BETA: i32 = -2317;
const GAMMA: i32 = 6284;

/// Restitution and friction of the depth collider here (as [`collider`]).
const E: f64 = 0.2;
const MU: f64 = 0.5;

/// A texel centre's clip coordinates, as the shader computes them (exact: multiples of 2⁻⁸).
fn texel_clip(px: IVec2) -> Vec2 {
    let size = IMAGE as f32;
    let uv = (px.as_vec2() + Vec2::splat(0.5)) / size;
    Vec2::new(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0)
}

/// The image's depth at a texel, 1 (nothing drawn) where the plane is beyond the far plane.
/// Below 1 every operation is exact (asserted against f64; α + β·x stays below 0.94, on the
/// 2⁻²⁴ grid); a sum at or above 1 in exact arithmetic rounds to 1 or more in any order, and is
/// clamped to 1.
fn affine_depth(px: IVec2) -> f32 {
    let c = texel_clip(px);
    let k = 1.0 / 65536.0;
    let (a, b, g) = (ALPHA as f32 * k, BETA as f32 * k, GAMMA as f32 * k);
    let d = a + b * c.x + g * c.y;
    let exact = f64::from(a) + f64::from(b) * f64::from(c.x) + f64::from(g) * f64::from(c.y);
    if exact < 1.0 {
        assert_eq!(f64::from(d), exact, "texel {px}: the affine depth is exact");
    }
    d.min(1.0)
}

fn affine_image() -> DepthImage {
    let mut depth = Vec::with_capacity((IMAGE * IMAGE) as usize);
    for row in 0..IMAGE as i32 {
        for col in 0..IMAGE as i32 {
            depth.push(affine_depth(IVec2::new(col, row)));
        }
    }
    DepthImage {
        width: IMAGE,
        height: IMAGE,
        depth,
    }
}

/// A `IMAGE`² Depth32Float texture holding [`affine_image`]: a full-screen triangle whose
/// fragments write the affine depth (exact, so whatever the adapter contracts) through
/// `frag_depth`.
fn affine_texture(ctx: &GpuContext) -> wgpu::Texture {
    let d = &ctx.device;
    let texture = d.create_texture(&wgpu::TextureDescriptor {
        label: Some("affine depth"),
        size: wgpu::Extent3d {
            width: IMAGE,
            height: IMAGE,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Depth32Float,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    });
    let k = 1.0f32 / 65536.0;
    let src = format!(
        "@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {{
            return vec4<f32>(f32(i32(i & 1u) * 4 - 1), f32(i32(i >> 1u) * 4 - 1), 0.5, 1.0);
        }}
        @fragment fn fs(@builtin(position) at: vec4<f32>) -> @builtin(frag_depth) f32 {{
            let c = vec2<f32>(at.x * (2.0 / {size:?}) - 1.0, 1.0 - at.y * (2.0 / {size:?}));
            return min({a:?} + {b:?} * c.x + {g:?} * c.y, 1.0);
        }}",
        size = IMAGE as f32,
        a = ALPHA as f32 * k,
        b = BETA as f32 * k,
        g = GAMMA as f32 * k,
    );
    let module = d.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("affine depth shader"),
        source: wgpu::ShaderSource::Wgsl(src.into()),
    });
    let pipeline = d.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("affine depth pipeline"),
        layout: None,
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs"),
            compilation_options: Default::default(),
            buffers: &[],
        },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: Some(wgpu::DepthStencilState {
            format: wgpu::TextureFormat::Depth32Float,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Always),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs"),
            compilation_options: Default::default(),
            targets: &[],
        }),
        multiview_mask: None,
        cache: None,
    });
    let view = texture.create_view(&Default::default());
    let mut enc = d.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("affine depth pass"),
            color_attachments: &[],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&pipeline);
        pass.draw(0..3, 0..1);
    }
    ctx.queue.submit([enc.finish()]);
    texture
}

/// The texture's values, through a compute shader's `textureLoad` (as the collider reads them;
/// GL adapters cannot copy a depth texture into a buffer).
fn read_texture(ctx: &GpuContext, texture: &wgpu::Texture) -> Vec<f32> {
    let d = &ctx.device;
    let n = IMAGE * IMAGE;
    let src = format!(
        "@group(0) @binding(0) var t: texture_2d<f32>;
        @group(0) @binding(1) var<storage, read_write> out: array<f32>;
        @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
            if (g.x >= {n}u) {{ return; }}
            out[g.x] = textureLoad(t, vec2<i32>(i32(g.x % {IMAGE}u), i32(g.x / {IMAGE}u)), 0).x;
        }}"
    );
    let module = d.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("read depth"),
        source: wgpu::ShaderSource::Wgsl(src.into()),
    });
    let pipeline = d.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("read depth"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let out = wgphys::gpu::buffer::zeroed(
        d,
        "read depth",
        u64::from(n) * 4,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    );
    let view = texture.create_view(&wgpu::TextureViewDescriptor {
        aspect: wgpu::TextureAspect::DepthOnly,
        ..Default::default()
    });
    let bind = d.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&view),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: out.as_entire_binding(),
            },
        ],
    });
    let mut enc = d.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(n.div_ceil(64), 1, 1);
    }
    ctx.queue.submit([enc.finish()]);
    wgphys::gpu::buffer::read_vec(d, &ctx.queue, &out, n as usize).expect("read back")
}

/// A texel's unprojected point: its exact value (the f32 matrix's entries taken as exact) and
/// the largest distance any evaluation a compiler may choose puts it from there (one side).
#[derive(Clone, Copy, Debug)]
struct TexelPoint {
    exact: DVec3,
    err: f64,
}

/// `inv * vec4(c, z, 1)` then `xyz / w` (depth.wgsl's `depth_unproject`): every lane's four
/// products summed in each of the 24 orders, each product after the first rounded or fused into
/// the running sum (192 evaluations; all a compiler may do with the expression), the quotient's
/// extremes over those, widened by the division's 2.5 ulp (≤ 5u of the quotient).
fn unproject_point(inv: Mat4, c: Vec2, z: f32) -> TexelPoint {
    let x = [c.x, c.y, z, 1.0];
    let mut lo = [f64::MAX; 4];
    let mut hi = [f64::MIN; 4];
    let mut exact = [0.0f64; 4];
    let perms = permutations();
    for k in 0..4 {
        let m: [f32; 4] = std::array::from_fn(|j| inv.col(j)[k]);
        exact[k] = (0..4).map(|j| f64::from(m[j]) * f64::from(x[j])).sum();
        for p in &perms {
            for mask in 0..8u32 {
                let mut acc = m[p[0]] * x[p[0]];
                for (i, &j) in p.iter().enumerate().skip(1) {
                    acc = if mask >> (i - 1) & 1 == 1 {
                        m[j].mul_add(x[j], acc)
                    } else {
                        acc + m[j] * x[j]
                    };
                }
                lo[k] = lo[k].min(f64::from(acc));
                hi[k] = hi[k].max(f64::from(acc));
            }
        }
    }
    assert!(lo[3] > 0.0, "w straddles 0 at {c}, {z}");
    let mut err = 0.0f64;
    let mut point = DVec3::ZERO;
    for k in 0..3 {
        let want = exact[k] / exact[3];
        point[k] = want;
        let corners = [lo[k] / lo[3], lo[k] / hi[3], hi[k] / lo[3], hi[k] / hi[3]];
        let e = corners
            .iter()
            .map(|q| (q - want).abs() + 5.0 * U * q.abs())
            .fold(0.0, f64::max);
        err += e * e;
    }
    TexelPoint {
        exact: point,
        err: err.sqrt(),
    }
}

fn permutations() -> Vec<[usize; 4]> {
    let mut out = Vec::new();
    for a in 0..4 {
        for b in 0..4 {
            for c in 0..4 {
                for d in 0..4 {
                    let p = [a, b, c, d];
                    if (0..4).all(|i| p.contains(&i)) {
                        out.push(p);
                    }
                }
            }
        }
    }
    out
}

/// The model's view of a texel's contact surface: its point and the largest distance (one
/// side) of its computed point and normal from the exact ones.
#[derive(Clone, Copy, Debug)]
struct TexelModel {
    point: DVec3,
    point_err: f64,
    normal: DVec3,
    normal_err: f64,
}

/// The surface the scene falls on, and each texel's model (computed on first use).
struct Surface {
    record: GpuDepth,
    image: DepthImage,
    points: HashMap<IVec2, TexelPoint>,
    texels: HashMap<IVec2, TexelModel>,
    /// The plane Π's unit normal (towards the camera).
    normal: DVec3,
}

impl Surface {
    fn new(kill: bool) -> Self {
        let vp = parity_view_proj();
        let record = GpuDepth {
            view_proj: vp,
            inv_view_proj: vp.inverse(),
            restitution: E as f32,
            friction: MU as f32,
            thickness: 0.5,
            flags: 1 | (u32::from(kill) << 1),
            size: [IMAGE, IMAGE],
            _pad: [0; 2],
        };
        let mut s = Self {
            record,
            image: affine_image(),
            points: HashMap::new(),
            texels: HashMap::new(),
            normal: DVec3::ZERO,
        };
        s.normal = s.texel(IVec2::splat(IMAGE as i32 / 2)).normal;
        s
    }

    fn point(&mut self, px: IVec2) -> TexelPoint {
        let inv = self.record.inv_view_proj;
        *self
            .points
            .entry(px)
            .or_insert_with(|| unproject_point(inv, texel_clip(px), affine_depth(px)))
    }

    /// `depth_contact`'s normal at texel `px`: m = (sx − s) × (sy − s), n = m/|m| towards the
    /// camera. One side's a = sx − s is off by the two points' errors and its own rounding
    /// (u per lane), m by |Δa||b| + |a||Δb| + |Δa||Δb| and its own (a product, a contractible
    /// product and a difference per lane: 3u·|a||b|), and the unit vector by 2|Δm|/|m| plus the
    /// length's and the division's (1.5u + 6u + 5u per lane, one side).
    fn texel(&mut self, px: IVec2) -> TexelModel {
        if let Some(t) = self.texels.get(&px) {
            return *t;
        }
        let s = self.point(px);
        let sx = self.point(px + IVec2::X);
        let sy = self.point(px + IVec2::Y);
        let r3 = 3f64.sqrt();
        let (a, b) = (sx.exact - s.exact, sy.exact - s.exact);
        let da = sx.err + s.err + r3 * U * a.length();
        let db = sy.err + s.err + r3 * U * b.length();
        let m = a.cross(b);
        let dm =
            da * b.length() + a.length() * db + da * db + r3 * 3.0 * U * a.length() * b.length();
        let mut normal = m.normalize();
        let near = unproject_point(self.record.inv_view_proj, texel_clip(px), 0.0).exact;
        let facing = normal.dot(near - s.exact);
        assert!(
            facing.abs() > 1e-3 * (near - s.exact).length(),
            "texel {px}: the normal's facing test is not clear-cut"
        );
        if facing < 0.0 {
            normal = -normal;
        }
        let t = TexelModel {
            point: s.exact,
            point_err: s.err,
            normal,
            normal_err: 2.0 * dm / m.length() + r3 * 12.5 * U,
        };
        self.texels.insert(px, t);
        t
    }

    /// The texel the twin reads for a particle at `p` (its own projection, in f32), if it is
    /// in the middle of the view (clear of the image's edges and of the far texels).
    fn texel_of(&self, p: Vec3) -> Result<IVec2, String> {
        let clip = self.record.view_proj * p.extend(1.0);
        let ndc = clip.xyz() / clip.w;
        if !(clip.w > 0.0 && ndc.x.abs() < 0.8 && ndc.y.abs() < 0.8 && (0.0..1.0).contains(&ndc.z))
        {
            return Err(format!("{p} outside the middle of the view"));
        }
        let size = Vec2::splat(IMAGE as f32);
        Ok((Vec2::new(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5) * size)
            .floor()
            .as_ivec2())
    }
}

/// A particle's running bound: how far its GPU state may be from the twin's, in the plane's
/// frame (normal and tangential parts, Euclidean lengths).
#[derive(Clone, Copy, Debug, Default)]
struct Running {
    pn: f64,
    pt: f64,
    vn: f64,
    vt: f64,
}

impl Running {
    fn pos(&self) -> f64 {
        self.pn + self.pt
    }
    fn vel(&self) -> f64 {
        self.vn + self.vt
    }
}

/// One step of one particle's bound, from the twin's state `(p, v)` before the step (the
/// world's gravity `g`, radius `r`): the new bound and whether the twin's contact acted, or why
/// a decision of the step is not clear of its threshold by more than the bound.
fn step_bound(
    s: &mut Surface,
    b: Running,
    p: Vec3,
    v: Vec3,
    r: f32,
    g: Vec3,
) -> Result<(Running, bool), String> {
    let dt = f64::from(DT);
    let r3 = 3f64.sqrt();
    // Free flight (the book's order): p + v·dt, (v + g·dt)·pow(1, dt); the step model's
    // one-step roundings, in both parts (a rounding has no preferred direction).
    let pf = p + v * DT;
    let vf = v + g * DT;
    let (speed, accel) = (f64::from(vf.length()), f64::from(g.length()));
    let one = step_model(1, speed, accel, dt);
    let dp = r3 * (one[0] * f64::from(pf.length()) + one[1]) * U;
    let dv = r3 * (STEP_V * speed + CONTRACT * accel * dt) * U;
    let mut out = Running {
        pn: b.pn + dt * b.vn + dp,
        pt: b.pt + dt * b.vt + dp,
        vn: b.vn + dv,
        vt: b.vt + dv,
    };
    let contact = wgphys::rounding::with_cpu_rounding(CpuRounding::Separate, || {
        depth_contact(&s.record, &s.image, pf, r)
    });
    if contact.w < -1e29 {
        return Err(format!("no surface under {pf}"));
    }
    // Any texel next to the twin's may be the GPU's: the largest errors and distances there.
    let at = s.texel_of(pf)?;
    let (mut point_err, mut normal_err, mut reach_out) = (0.0f64, 0.0f64, 0.0f64);
    for dy in -1..=1 {
        for dx in -1..=1 {
            let t = s.texel(at + IVec2::new(dx, dy));
            point_err = point_err.max(t.point_err);
            normal_err = normal_err.max(t.normal_err);
            reach_out = reach_out.max((t.point - pf.as_dvec3()).length());
        }
    }
    // GPU against twin: each side's point and normal off the plane's by the above.
    let dn = 2.0 * normal_err;
    let pen = f64::from(contact.w);
    // pen = (s − p)·n + r: each side's point error along n, |s − p| times its normal's, each
    // side's DOT3 of |s − p| and ROUND of pen; then the GPU position's difference (its normal
    // part, and its tangential part through the normal's error).
    let pen_own =
        2.0 * point_err + reach_out * dn + 2.0 * (DOT3 * reach_out + ROUND * pen.abs()) * U;
    let dpen = pen_own + out.pn + out.pt * normal_err;
    // The contact test: penetration > −reach, reach = max(slop, |g|·dt²) (its length an
    // evaluation of LENGTH, far below the depth's difference).
    let reach = f64::from(WorldConfig::default().contact_slop).max(accel * dt * dt);
    let margin = pen + reach;
    if margin.abs() <= dpen {
        return Err(format!(
            "the contact at {pf} ({margin:e} from its threshold, bound {dpen:e})"
        ));
    }
    if pen >= 0.5 + f64::from(r) - dpen {
        return Err(format!("{pf} is nearly behind the surface's thickness"));
    }
    if margin < 0.0 {
        return Ok((out, false));
    }
    let n = s.normal;
    let vf = vf.as_dvec3();
    // The push-out p + n·pen (when pen > 0) puts the centre's height above the plane at
    // max(height, its own contact level): a clamp, 1-Lipschitz, so the normal part's difference
    // is at most the larger of the free flight's and the contact level's (each side's point and
    // normal errors, the tangential position's difference through the normal's, the push's
    // roundings); the tangential part keeps its own and turns by the normal's difference.
    let level = pen_own
        + out.pt * normal_err
        + pen.abs() * dn
        + (CONTRACT * pen.abs() + ROUND * f64::from(pf.length())) * U;
    out.pn = out.pn.max(level);
    out.pt += pen.abs() * dn + ROUND * f64::from(pf.length()) * U;
    let vn = vf.dot(n);
    let dvn = out.vn + vf.length() * dn + DOT3 * vf.length() * U;
    if vn.abs() <= dvn {
        return Err(format!("the approach test at {pf} ({vn:e}, bound {dvn:e})"));
    }
    if vn >= 0.0 {
        return Ok((out, true)); // leaving: no response
    }
    let [_, n_sens, rounds] = contact_response(E, MU);
    // The resting fix reads a·n·dt < 0 (clearly: g·n is most of g here).
    let acc_vn = g.as_dvec3().dot(n) * dt;
    assert!(
        acc_vn < -0.5 * accel * dt,
        "gravity does not press on the surface"
    );
    let d_acc_vn = accel * dt * (dn + (DOT3 + ROUND) * U);
    // new_vn = max(e·(a·n·dt) − e·vn, 0): a clamp again, so e times the two differences.
    let new_vn = (E * (acc_vn - vn)).max(0.0);
    let d_new_vn = E * (dvn + d_acc_vn) + ROUND * new_vn * U;
    let x = new_vn - vn;
    let vt = (vf - n * vn).length();
    let dvt = out.vt + dvn + 2.0 * vf.length() * dn;
    let dx = d_new_vn + dvn;
    out.vn = d_new_vn + new_vn * dn;
    out.vt = if MU * x - vt > MU * dx + dvt {
        // Friction holds on both sides: the tangential velocity is exactly 0 (vt·0 + n·new_vn).
        new_vn * dn
    } else {
        // Sliding: shrinking vt by the friction's reach μ·X is a projection, 1-Lipschitz, so
        // the tangential part carries its own difference and the reach's (μ times X's), and
        // the normal's difference through the response (contact_response's N_SENS of the
        // speed) and the response's own roundings (its ROUNDS of the speed).
        dvt + MU * dx + n_sens * vf.length() * dn + rounds * vf.length() * U
    };
    Ok((out, true))
}

/// Candidates for the scene: over the middle of the view, 0.05 to 2.4 m above the plane (the
/// lowest ones start on it or nearly), some thrown sideways (they slide before friction holds
/// them).
fn candidates() -> Vec<Particle> {
    let mut rng = Rng::new(0xdeb7);
    (0..300)
        .map(|_| {
            let (x, z) = (rng.range(-2.5, 2.5), rng.range(-2.5, 2.5));
            let height = if rng.chance(0.3) {
                rng.range(0.05, 0.06)
            } else {
                rng.range(0.3, 2.4)
            };
            let p = Vec3::new(x, 0.3 * x + height * (1.0 + 0.09f32).sqrt(), z);
            let v = Vec3::new(rng.range(-1.5, 1.5), 0.0, rng.range(-1.5, 1.5));
            Particle::new(p).with_size(0.05).with_velocity(v)
        })
        .collect()
}

const STEPS: u32 = 120;

/// The depth collider for a world of either backend.
fn depth_collider(source: DepthSource, kill: bool) -> DepthCollider {
    DepthCollider {
        source,
        view_proj: parity_view_proj(),
        restitution: E as f32,
        friction: MU as f32,
        thickness: 0.5,
        kill,
    }
}

/// Runs the twin alone with every candidate, taking each one's running bound along; returns the
/// candidates none of whose decisions came near a threshold (a particle's trajectory does not
/// depend on the others, so the same ones decide the same way in a world of their own).
fn well_conditioned(kill: bool, rounding: CpuRounding) -> (Vec<Particle>, usize) {
    let all = candidates();
    let mut c = ParticleWorld::new(
        Backend::Cpu,
        WorldConfig {
            capacity: all.len() as u32,
            ..world(Backend::Cpu).config().clone()
        },
    )
    .expect("cpu world");
    c.set_cpu_rounding(rounding);
    c.set_depth_collider(Some(depth_collider(
        DepthSource::Image(affine_image()),
        kill,
    )))
    .expect("cpu depth collider");
    for p in &all {
        c.spawn(*p).expect("spawn");
    }
    let mut surface = Surface::new(kill);
    let gravity = Vec3::new(0.0, -9.81, 0.0);
    let mut bound: HashMap<u32, Running> = HashMap::new();
    let mut rejected = std::collections::HashSet::new();
    let mut before: Option<Snapshot> = None;
    for _ in 0..STEPS {
        c.step(DT).expect("cpu step");
        if let Some(prev) = &before {
            for i in 0..prev.len() {
                let id = prev.life[i].id;
                if rejected.contains(&id) {
                    continue;
                }
                let (p, v) = (prev.pos[i].truncate(), prev.vel[i].truncate());
                match step_bound(&mut surface, bound[&id], p, v, prev.size[i], gravity) {
                    Ok((b, _)) => {
                        bound.insert(id, b);
                    }
                    Err(_) => {
                        rejected.insert(id);
                    }
                }
            }
        }
        let now = c.read_snapshot().expect("snapshot");
        for i in 0..now.len() {
            bound.entry(now.life[i].id).or_default();
        }
        before = Some(now);
    }
    let kept: Vec<Particle> = (0..all.len() as u32)
        .filter(|id| !rejected.contains(id))
        .map(|id| all[id as usize])
        .collect();
    (kept, all.len())
}

fn parity(kill: bool, rounding: CpuRounding) {
    let label = format!("depth collider (kill {kill}, {rounding:?} CPU)");
    let (kept, candidates) = well_conditioned(kill, rounding);
    assert!(
        kept.len() >= 100,
        "{label}: only {} of {candidates} candidates decide every contact clear of rounding",
        kept.len()
    );
    let scene = &kept[..100];
    let ctx = shared_gpu();
    let texture = affine_texture(&ctx);
    let image = affine_image();
    let read = read_texture(&ctx, &texture);
    for (i, (g, c)) in read.iter().zip(&image.depth).enumerate() {
        assert_eq!(
            g.to_bits(),
            c.to_bits(),
            "texel {i}: the texture holds the image's depth"
        );
    }
    let mut g = world(Backend::Gpu(ctx.clone()));
    let mut c = world(Backend::Cpu);
    c.set_cpu_rounding(rounding);
    g.set_depth_collider(Some(depth_collider(DepthSource::Texture(texture), kill)))
        .expect("gpu depth collider");
    c.set_depth_collider(Some(depth_collider(DepthSource::Image(image), kill)))
        .expect("cpu depth collider");
    for p in scene {
        g.spawn(*p).expect("gpu spawn");
        c.spawn(*p).expect("cpu spawn");
    }
    let mut surface = Surface::new(kill);
    let gravity = Vec3::new(0.0, -9.81, 0.0);
    let mut bound: HashMap<u32, Running> = HashMap::new();
    let mut before: Option<Snapshot> = None;
    let (mut used, mut widest, mut contacts) = ([0.0f64; 2], [0.0f64; 2], 0u32);
    for step in 1..=STEPS {
        g.step(DT).expect("gpu step");
        c.step(DT).expect("cpu step");
        let what = format!("{label} step {step}");
        assert_counters_eq(
            &what,
            &g.read_counters().unwrap(),
            &c.read_counters().unwrap(),
        );
        let (sg, sc) = (g.read_snapshot().unwrap(), c.read_snapshot().unwrap());
        // The bound of every particle the twin has: from the previous step, or 0 for one that
        // joined in this one (appended as spawned: the same bits on both sides).
        let mut next = HashMap::new();
        if let Some(prev) = &before {
            for i in 0..prev.len() {
                let id = prev.life[i].id;
                let (p, v) = (prev.pos[i].truncate(), prev.vel[i].truncate());
                let (b, touched) =
                    step_bound(&mut surface, bound[&id], p, v, prev.size[i], gravity)
                        .unwrap_or_else(|e| panic!("{what}: id {id}: {e} is decided by rounding"));
                contacts += u32::from(touched);
                next.insert(id, b);
            }
        }
        for i in 0..sc.len() {
            next.entry(sc.life[i].id).or_insert_with(Running::default);
        }
        bound = next;
        // Every field: ids, kinds, ages, lifetimes, accelerations, colours and sizes exactly
        // (copied, or one add of dt per step), positions and velocities within each particle's
        // running bound.
        let checked_below = Tol {
            rel: 0.0,
            abs: f32::INFINITY,
        };
        compare_snapshots(
            &what,
            &sg,
            &sc,
            SnapTol {
                pos: checked_below,
                vel: checked_below,
                ..SnapTol::EXACT
            },
        );
        for i in 0..sc.len() {
            let b = bound[&sc.life[i].id];
            let tol = |x: f64| Tol {
                rel: 0.0,
                abs: x as f32,
            };
            let mut e = MaxErr::default();
            check_v4(&what, "pos", i, sg.pos[i], sc.pos[i], tol(b.pos()), &mut e);
            used[0] = used[0].max(f64::from(e.used));
            let mut e = MaxErr::default();
            check_v4(&what, "vel", i, sg.vel[i], sc.vel[i], tol(b.vel()), &mut e);
            used[1] = used[1].max(f64::from(e.used));
            widest = [widest[0].max(b.pos()), widest[1].max(b.vel())];
        }
        before = Some(sc);
    }
    let live = c.read_counters().unwrap().live;
    if kill {
        assert_eq!(live, 0, "{label}: every particle died where it landed");
    } else {
        assert_eq!(live, 100, "{label}: every particle lives");
    }
    assert!(contacts > 1000 || kill, "{label}: only {contacts} contacts");
    eprintln!(
        "[measure] {label}: {} of {candidates} candidates well-conditioned; {contacts} \
         contacts; largest share of the running bound used: pos {:.1}%, vel {:.1}% (widest \
         bounds {:.2e} m, {:.2e} m/s)",
        kept.len(),
        100.0 * used[0],
        100.0 * used[1],
        widest[0],
        widest[1]
    );
}

#[test]
fn depth_collider_gpu_matches_cpu_bouncing_and_resting() {
    parity(false, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn depth_collider_gpu_matches_fused_cpu_bouncing_and_resting() {
    parity(false, CpuRounding::Fused);
}

#[test]
fn depth_collider_gpu_matches_cpu_killing_where_they_land() {
    parity(true, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn depth_collider_gpu_matches_fused_cpu_killing_where_they_land() {
    parity(true, CpuRounding::Fused);
}
