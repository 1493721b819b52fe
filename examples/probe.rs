fn main() {
    let c = wgphys::gpu::context::GpuContext::new().unwrap();
    println!("{}", c.describe());
    let l = c.device.limits();
    println!("ssbo/stage {} ubo/stage {} maxbind {} maxbuf {} wg_storage {} inv {} ts {}", l.max_storage_buffers_per_shader_stage, l.max_uniform_buffers_per_shader_stage, l.max_storage_buffer_binding_size, l.max_buffer_size, l.max_compute_workgroup_storage_size, l.max_compute_invocations_per_workgroup, c.timestamps);
}
