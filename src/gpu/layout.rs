//! The one table of every GPU struct's fields: each `#[repr(C)]` `bytemuck::Pod` mirror of a
//! WGSL struct is declared through [`gpu_struct!`](crate::gpu::layout), which emits the struct
//! as written and its [`GpuLayout`]: the WGSL struct's name and every field's name, offset and
//! size, read from the declaration itself. `tests/layout.rs` compares each with naga's layout
//! of the composed WGSL, so no field list is written twice.

/// A Rust mirror of a WGSL struct (see the module docs).
pub trait GpuLayout: bytemuck::Pod {
    /// The WGSL struct's name.
    const WGSL: &'static str;
    /// Every field as (name, byte offset, byte size), in declaration order.
    fn fields() -> Vec<(&'static str, usize, usize)>;
}

/// Declares a `#[repr(C)]` GPU struct and its [`GpuLayout`]:
/// `gpu_struct! { /// docs #[repr(C)] #[derive(...)] pub struct GpuX as "X" { /// doc pub a: T, ... } }`.
macro_rules! gpu_struct {
    (
        $(#[$meta:meta])*
        pub struct $name:ident as $wgsl:literal {
            $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $( $(#[$fmeta])* pub $field : $ty ),*
        }

        impl $crate::gpu::layout::GpuLayout for $name {
            const WGSL: &'static str = $wgsl;
            fn fields() -> ::std::vec::Vec<(&'static str, usize, usize)> {
                ::std::vec![$((
                    ::core::stringify!($field),
                    ::core::mem::offset_of!($name, $field),
                    ::core::mem::size_of::<$ty>(),
                )),*]
            }
        }
    };
}
pub(crate) use gpu_struct;
