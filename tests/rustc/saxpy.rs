// saxpy.rs - a kernel as rustc writes one for nvptx64, without core (no
// target library is installed): saxpy.ll is rustc 1.95's output (LLVM 22),
//   RUSTC_BOOTSTRAP=1 rustc --target nvptx64-nvidia-cuda --crate-type=cdylib \
//     --emit=llvm-ir -C opt-level=3 -C target-cpu=sm_70 -o saxpy.ll saxpy.rs
// kept as a fixture (unit.backends.rustc).
#![feature(no_core, lang_items, abi_ptx, link_llvm_intrinsics)]
#![allow(internal_features)]
#![no_core]
#![no_std]
#[lang = "pointee_sized"] pub trait PointeeSized {}
#[lang = "meta_sized"] pub trait MetaSized: PointeeSized {}
#[lang = "sized"] pub trait Sized: MetaSized {}
#[lang = "copy"] pub trait Copy {}
impl Copy for f32 {}
impl Copy for u32 {}
impl Copy for usize {}
impl<T: ?Sized> Copy for *mut T {}
impl<T: ?Sized> Copy for *const T {}
#[lang = "mul"] pub trait Mul<Rhs = Self> { type Output; fn mul(self, rhs: Rhs) -> Self::Output; }
#[lang = "add"] pub trait Add<Rhs = Self> { type Output; fn add(self, rhs: Rhs) -> Self::Output; }
impl Mul for f32 { type Output = f32; fn mul(self, r: f32) -> f32 { self * r } }
impl Add for f32 { type Output = f32; fn add(self, r: f32) -> f32 { self + r } }
impl Mul for usize { type Output = usize; fn mul(self, r: usize) -> usize { self * r } }
impl Add for usize { type Output = usize; fn add(self, r: usize) -> usize { self + r } }
#[lang = "legacy_receiver"] pub trait LegacyReceiver {}
impl<T: ?Sized> LegacyReceiver for &T {}
#[lang = "partial_ord"] pub trait PartialOrd<Rhs: ?Sized = Self> { fn lt(&self, other: &Rhs) -> bool; }
impl PartialOrd for usize { fn lt(&self, o: &usize) -> bool { *self < *o } }

extern "C" {
    #[link_name = "llvm.nvvm.read.ptx.sreg.tid.x"] fn tid_x() -> u32;
    #[link_name = "llvm.nvvm.read.ptx.sreg.ctaid.x"] fn ctaid_x() -> u32;
    #[link_name = "llvm.nvvm.read.ptx.sreg.ntid.x"] fn ntid_x() -> u32;
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn saxpy(n: usize, a: f32, x: *const f32, y: *mut f32) {
    let i = (ctaid_x() as usize) * (ntid_x() as usize) + (tid_x() as usize);
    if i < n {
        let px = (x as usize + i * 4) as *const f32;
        let py = (y as usize + i * 4) as *mut f32;
        *py = a * *px + *py;
    }
}
