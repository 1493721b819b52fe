#!/usr/bin/env python3
"""Pyramid benchmark for nexus3d (dimforge's wgpu rigid-body engine), the same scene as
`wgphys-rigid-bench --scenes pyramid`. See README.md in this folder.

Prints one markdown table row per (size, configuration):

| engine (config) | boxes | median ms/step | encode ms | passes | drift median / max mm |
"""

import argparse
import ctypes
import os
import statistics
import sys
import time

LVP_ICD = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"

DT = 1.0 / 60.0
HALF = 0.5
SPACING = 2.0 * HALF
DENSITY = 1000.0
FRICTION = 0.9
RESTITUTION = 0.0
WARMUP = 5
SETTLE_STEP = 60  # t = 1 s
DRIFT_STEP = 90  # t = 1.5 s


def parse_args():
    ap = argparse.ArgumentParser(
        description="nexus3d on the wgphys pyramid scene (see README.md in this folder).")
    ap.add_argument("--sizes", default="50,100",
                    help="pyramid rows, comma separated (50 = 1275 boxes, 100 = 5050, 200 = 20100)")
    ap.add_argument("--steps", type=int, default=20, help="timed steps after the warm-up (min 20)")
    ap.add_argument("--warmup", type=int, default=WARMUP, help="untimed steps first")
    ap.add_argument("--drift-sizes", default="50,100",
                    help="rows for which the run goes on to step 90 to measure drift "
                         "(comma separated, '' for none, 'all')")
    ap.add_argument("--configs", default="default,iter8",
                    help="'default' (nexus' defaults: 4 substeps) and/or 'iter8' "
                         "(4 substeps, internal_pgs_iterations = 8)")
    ap.add_argument("--no-passes", action="store_true",
                    help="skip the extra GPU-timestamp steps that count the passes")
    ap.add_argument("--any-adapter", action="store_true",
                    help="don't pin the Vulkan ICD to lavapipe / hide EGL")
    return ap.parse_args()


def pin_lavapipe():
    """Makes lavapipe the only adapter wgpu can find: the Vulkan loader sees only the lavapipe
    ICD, and glvnd finds no EGL vendor (so wgpu's GL backend offers no llvmpipe adapter)."""
    os.environ.setdefault("VK_ICD_FILENAMES", LVP_ICD)
    os.environ.setdefault("__EGL_VENDOR_LIBRARY_FILENAMES", "/nonexistent-egl-vendor.json")


def vulkan_devices():
    """Names of the Vulkan physical devices the loader exposes to this process (ctypes, no
    extra package). nexus has no adapter query, so this names what it can pick from."""
    try:
        vk = ctypes.CDLL("libvulkan.so.1")
    except OSError as e:
        return [f"(no libvulkan: {e})"]

    class InstanceCreateInfo(ctypes.Structure):
        _fields_ = [("sType", ctypes.c_int32), ("pNext", ctypes.c_void_p),
                    ("flags", ctypes.c_uint32), ("pApplicationInfo", ctypes.c_void_p),
                    ("enabledLayerCount", ctypes.c_uint32),
                    ("ppEnabledLayerNames", ctypes.c_void_p),
                    ("enabledExtensionCount", ctypes.c_uint32),
                    ("ppEnabledExtensionNames", ctypes.c_void_p)]

    info = InstanceCreateInfo(1, None, 0, None, 0, None, 0, None)  # 1 = INSTANCE_CREATE_INFO
    inst = ctypes.c_void_p()
    if vk.vkCreateInstance(ctypes.byref(info), None, ctypes.byref(inst)) != 0:
        return ["(vkCreateInstance failed)"]
    count = ctypes.c_uint32()
    vk.vkEnumeratePhysicalDevices(inst, ctypes.byref(count), None)
    devs = (ctypes.c_void_p * count.value)()
    vk.vkEnumeratePhysicalDevices(inst, ctypes.byref(count), devs)
    kinds = {0: "other", 1: "integrated", 2: "discrete", 3: "virtual", 4: "cpu"}
    names = []
    for d in devs:
        props = ctypes.create_string_buffer(4096)  # VkPhysicalDeviceProperties (~824 B)
        vk.vkGetPhysicalDeviceProperties(ctypes.c_void_p(d), props)
        api = int.from_bytes(props.raw[0:4], "little")
        dtype = int.from_bytes(props.raw[16:20], "little")
        name = props.raw[20:276].split(b"\0", 1)[0].decode()
        names.append(f"{name} ({kinds.get(dtype, dtype)}, Vulkan "
                     f"{api >> 22}.{(api >> 12) & 0x3ff}.{api & 0xfff})")
    vk.vkDestroyInstance(inst, None)
    return names


def loaded_drivers():
    libs = set()
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1]
            base = os.path.basename(path)
            if base.startswith(("libvulkan_", "libEGL_", "libGLX_")) or "dri" in base:
                libs.add(base)
    return sorted(libs)


def pyramid_positions(rows):
    """Row r (0-based) has rows - r boxes at x = x0 + k, y = 0.5 + r, z = 0."""
    out = []
    for r in range(rows):
        count = rows - r
        x0 = -0.5 * (count - 1) * SPACING
        y = HALF + r * SPACING
        out.extend((x0 + k * SPACING, y, 0.0) for k in range(count))
    return out


def build(nx, viewer, rows, iterations):
    state = nx.NexusState()
    # Ground: a static cuboid whose top face is at y = 0 (nexus has no half-space collider).
    ground_half = rows * SPACING + 10.0
    state.insert_rigid_body(
        nx.RigidBodyBuilder.fixed().translation(nx.vec3(0.0, -1.0, 0.0)).build(),
        nx.ColliderBuilder.cuboid(ground_half, 1.0, ground_half)
        .friction(FRICTION).restitution(RESTITUTION).build(),
        nx.RbdCoupling.NONE)
    handles = []
    for (x, y, z) in pyramid_positions(rows):
        body = nx.RigidBodyBuilder.dynamic().translation(nx.vec3(x, y, z)).build()
        collider = (nx.ColliderBuilder.cuboid(HALF, HALF, HALF).density(DENSITY)
                    .friction(FRICTION).restitution(RESTITUTION).build())
        handles.append(state.insert_rigid_body(body, collider, nx.RbdCoupling.NONE))
    state.set_rbd_timestep(DT, 4)
    if iterations is not None:
        state.set_rbd_solver_params(internal_pgs_iterations=iterations)
    state.finalize(viewer)
    rows_idx = [state.body_gpu_index(0, h) for h in handles]
    return state, rows_idx


def positions(state, viewer, idx):
    pos, _quat = state.read_body_poses(viewer)
    return pos[idx]


def run_case(nx, np, viewer, pipeline, rows, config, args, drift):
    iterations = {"default": None, "iter8": 8}[config]
    t0 = time.perf_counter()
    state, idx = build(nx, viewer, rows, iterations)
    build_s = time.perf_counter() - t0
    idx = np.asarray(idx)
    params = state.rbd_solver_params()

    last = args.warmup + max(args.steps, 20)
    if drift:
        last = max(last, DRIFT_STEP)
    times, encode, sim_only = [], [], []
    settled = None
    first_step_s = None
    for step in range(1, last + 1):
        t = time.perf_counter()
        pipeline.simulate(viewer, state)
        t_sim = time.perf_counter()
        # simulate() blocks on nexus' async step; the tiny pose readback below makes sure the
        # queue has drained (the readback waits for the GPU) and is inside the timed region.
        state.read_body_poses(viewer)
        t_end = time.perf_counter()
        dt = t_end - t
        if step == 1:
            first_step_s = dt
        if step > args.warmup:  # with drift, every step up to 90 after the warm-up is timed
            times.append(dt * 1e3)
            sim_only.append((t_sim - t) * 1e3)
            # nexus' `encoding_time_ms`; on lavapipe it came out within ~2 ms of the whole
            # simulate() call, so it is not a pure host-recording figure there.
            encode.append(state.run_stats()["encoding_time_ms"])
        if drift and step == SETTLE_STEP:
            settled = positions(state, viewer, idx)
    drift_txt = "n/a"
    if drift:
        end = positions(state, viewer, idx)
        d = np.linalg.norm(end - settled, axis=1) * 1e3
        drift_txt = f"{np.median(d):.2f} / {d.max():.1f}"
        delta = (end - settled) * 1e3
        start = np.asarray(pyramid_positions(rows))
        sink = (start[:, 1] - end[:, 1]) * 1e3
        print(f"<!-- rows {rows} {config} drift detail: mean dx {delta[:, 0].mean():+.1f}, "
              f"mean dy {delta[:, 1].mean():+.1f}, mean |dz| {np.abs(delta[:, 2]).mean():.1f} mm "
              f"(1 s -> 1.5 s); top box y {start[-1, 1]:.3f} -> {settled[-1, 1]:.3f} -> "
              f"{end[-1, 1]:.3f} m (0 -> 1 s -> 1.5 s); bottom row sank {sink[:rows].mean():.1f} mm, "
              f"top box sank {sink[-1]:.1f} mm by 1.5 s; {(d > 10).sum()} boxes moved > 1 cm -->",
              file=sys.stderr, flush=True)
    stats = state.run_stats()

    passes_txt = "n/a"
    if not args.no_passes:
        # A few extra steps with GPU timestamps (after the timed and drift windows). nexus gives
        # a {pass label: ms} dict, not a dispatch count: the column is the number of distinct
        # labels of one step (a label repeated per substep appears once).
        try:
            ts = nx.GpuTimestamps(viewer, 2048)  # 2 queries each; wgpu caps a set at 4096
            labels = {}
            for _ in range(3):
                pipeline.simulate(viewer, state, ts)
                viewer.sync(state, ts)
                st = state.run_stats()
                if st["gpu_pass_times"]:
                    labels = st["gpu_pass_times"]
                    gpu_ms = st["gpu_total_time_ms"]
            if labels:
                passes_txt = f"{len(labels)} pass labels (GPU {gpu_ms:.1f} ms)"
                print("<!-- pass labels (ms): " + ", ".join(
                    f"{k} {v:.2f}" for k, v in labels.items()) + " -->",
                    file=sys.stderr, flush=True)
        except Exception as e:  # noqa: BLE001 - report and go on
            passes_txt = f"n/a ({type(e).__name__})"

    label = ("default: 4 substeps x %d PGS it" % params["internal_pgs_iterations"]
             if config == "default" else
             "4 substeps x %d PGS it" % params["internal_pgs_iterations"])
    print(f"| nexus3d {nx_version()} ({label}) | {len(idx)} | {statistics.median(times):.1f} | "
          f"{statistics.median(encode):.2f} | {passes_txt} | {drift_txt} |", flush=True)
    print(f"<!-- rows {rows}: build {build_s:.1f} s, first step {first_step_s:.1f} s, "
          f"{len(times)} timed steps (min {min(times):.1f}, max {max(times):.1f} ms; "
          f"simulate() alone median {statistics.median(sim_only):.1f} ms), "
          f"num_colors {stats['num_colors']}, drift {'steps 60->90' if drift else 'not measured'}, "
          f"solver {params} -->", file=sys.stderr, flush=True)
    del state


def nx_version():
    try:
        from importlib.metadata import version
        return version("dimforge-nexus3d")
    except Exception:  # noqa: BLE001
        return "?"


def main():
    args = parse_args()
    if not args.any_adapter:
        pin_lavapipe()
    import numpy as np
    import nexus3d as nx

    sizes = [int(s) for s in args.sizes.split(",") if s]
    if args.drift_sizes == "all":
        drift_sizes = set(sizes)
    else:
        drift_sizes = {int(s) for s in args.drift_sizes.split(",") if s}
    configs = [c for c in args.configs.split(",") if c]

    viewer = nx.NexusViewer(headless=True)
    viewer.init_backend()
    pipeline = nx.NexusPipeline()
    devices = vulkan_devices()
    print(f"adapter: nexus backend '{viewer.backend_name()}' (nexus exposes no adapter name); "
          f"Vulkan devices visible: {', '.join(devices)}; drivers loaded: "
          f"{', '.join(loaded_drivers())}", flush=True)
    print("| engine (config) | boxes | median ms/step | encode ms | passes | "
          "drift 1 s -> 1.5 s median / max mm |", flush=True)
    print("|---|---|---|---|---|---|", flush=True)
    for rows in sizes:
        for config in configs:
            run_case(nx, np, viewer, pipeline, rows, config, args, rows in drift_sizes)


if __name__ == "__main__":
    main()
