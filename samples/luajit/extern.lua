-- extern.lua - a CUDA C++ function called from a kernel a LuaJIT host writes.
--
-- The LuaJIT twin of samples/extern: through the FFI binding
-- (host_shims/luajit/cuplug.lua, made from the public header), it declares ext_lerp (lerp.cu) as
-- numba-cuda's declare_device does, resolves math.sqrt(float32) in the
-- registry, writes a kernel calling both as NVVM IR, compiles it to a cubin
-- (the .cu by NVRTC, all linked with LTO) and, on a GPU, launches it and
-- checks every element.  Without a GPU (or with --no-gpu) the same kernel
-- runs on this CPU instead (cuplug's host target): ext_lerp's host
-- implementation is the same function, written as NVVM IR and compiled for
-- the CPU by cuplug, whose address declare_device takes.
--
--   luajit extern.lua [--no-gpu | --gpu-only] [--library=PATH] [--header=PATH]
--
-- The library defaults to $CUPLUG_LIBRARY, failing that to the plugin of
-- this checkout's build (build/lib/libcuplug.so, as scripts/build.sh
-- leaves it); the header to $CUPLUG_HEADER, failing that to this
-- checkout's.  --gpu-only exits with 77 (skipped) without a GPU.
local dir = arg[0]:match("^(.*)/[^/]*$") or "."
-- the binding lives with the other host adapters, in host_shims/luajit
package.path = dir .. "/../../host_shims/luajit/?.lua;" .. package.path
local ffi = require("ffi")
local cuplug = require("cuplug")
local check, new, array = cuplug.check, cuplug.new, cuplug.array

local mode, library, header = "all", nil, nil
for _, a in ipairs(arg) do
  if a == "--no-gpu" or a == "--gpu-only" then mode = a:sub(3)
  elseif a:match("^%-%-library=") then library = a:match("=(.*)")
  elseif a:match("^%-%-header=") then header = a:match("=(.*)")
  else
    io.stderr:write("usage: luajit extern.lua [--no-gpu | --gpu-only] [--library=PATH] [--header=PATH]\n")
    os.exit(2)
  end
end
-- the checkout the sample is in: "" when run from its root
local root = dir == "samples/luajit" and "" or dir:match("^(.*/)samples/luajit$") or dir .. "/../../"
local function given(name)
  local v = os.getenv(name)
  return v ~= "" and v or nil
end
header = header or given("CUPLUG_HEADER") or root .. "abi/include/cuplug/cuplug.h"
library = library or given("CUPLUG_LIBRARY") or root .. "build/lib/libcuplug.so"

-- A clean error, not a traceback: what is missing and how to give it.
local function fail(message)
  io.stderr:write("extern.lua: ", message, "\n")
  os.exit(1)
end
local function readable(path)
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end
if not readable(library) then
  fail(("no plugin at %s: build one (scripts/build.sh), or give --library=PATH or set "
        .. "CUPLUG_LIBRARY"):format(library))
end

-- 0. the plugin, at the ABI of the header (1.2: resolve_call is the newest call used)
local opened, api = pcall(cuplug.open, library, header)
if not opened then fail((tostring(api):gsub("^[^:]*:%d+: ", ""))) end
assert(api.abi_minor >= 2 and cuplug.has("resolve_call"),
       ("the plugin speaks ABI %d.%d, this sample needs 1.2"):format(api.abi_major, api.abi_minor))
local info = new("cuplug_info")
check(api.get_info(info))
local gpu = info.device_count > 0 and mode ~= "no-gpu"
if mode == "gpu-only" and not gpu then
  print("no GPU, skipped: " .. ffi.string(info.driver_status))
  os.exit(77)
end
local sp = ffi.new("cuplug_session *[1]")
check(api.session_create(nil, sp))
local session = sp[0]
local registry = api.session_registry(session)

-- 1. ext_lerp, as numba-cuda's cuda.declare_device('ext_lerp',
--    'float32(float32, float32, float32)', link='lerp.cu', abi='c'), with
--    its implementation on the host: lerp.cu's function as NVVM IR,
--    compiled for this CPU, a C function whose address cuplug calls.
local lerp_ir = [[
define float @"ext_lerp"(float %"a", float %"b", float %"t") {
entry:
  %"d" = fsub float %"b", %"a"
  %"m" = fmul float %"t", %"d"
  %"r" = fadd float %"a", %"m"
  ret float %"r"
}
]]
local function compile_for_host(name, text, entry, signature, kind)
  local m = new("cuplug_module", { name = name, text = text, size = #text })
  local c = new("cuplug_compile_args", {
    session = session, modules = array("const cuplug_module *", { m }), num_modules = 1,
    entry = entry, signature = signature, entry_abi = cuplug.CUPLUG_ABI_C,
    -- a C-ABI function; a kernel keeps the Numba ABI (it returns nothing)
    abi = kind == cuplug.CUPLUG_KERNEL and cuplug.CUPLUG_ABI_NUMBA or cuplug.CUPLUG_ABI_C,
    kind = kind, output = cuplug.CUPLUG_OUTPUT_HOST,
  })
  check(api.compile(c))
  local l = new("cuplug_load_args", { session = session, artifact = c.artifact })
  check(api.load(l))
  api.artifact_destroy(c.artifact)
  return l.library
end
local lerp_host = compile_for_host("lerp.ll", lerp_ir, "ext_lerp",
                                   "float32(float32, float32, float32)",
                                   cuplug.CUPLUG_DEVICE_FUNCTION)
local lerp_fn = new("cuplug_host_function_args", { library = lerp_host, name = "ext_lerp" })
check(api.host_function(lerp_fn))
local lerp_cu = new("cuplug_code", { path = dir .. "/lerp.cu" })
local declare = new("cuplug_declare_device_args", {
  registry = registry,
  name = "ext_lerp",
  signature = "float32(float32, float32, float32)",
  abi = cuplug.CUPLUG_ABI_C,
  link = array("const cuplug_code *", { lerp_cu }),
  num_link = 1,
  host_function = lerp_fn.address,
})
check(api.declare_device(declare))

-- A bad input: the same name twice is an error, raised in Lua by check.
local ok, why = pcall(function() check(api.declare_device(declare)) end)
assert(not ok and why:find("CUPLUG_ERR_DUPLICATE", 1, true) and why:find("ext_lerp", 1, true),
       "declaring ext_lerp twice should raise CUPLUG_ERR_DUPLICATE, got: " .. tostring(why))
print("declaring ext_lerp twice: " .. why:gsub("^[^:]*:%d+: ", ""))

-- 2. math.sqrt(float32) from the registry, as a front end meeting the call
local f32 = api.type_scalar(cuplug.CUPLUG_TYPE_FLOAT32)
local call = new("cuplug_resolve_args", {
  registry = registry, key = "math.sqrt", argtypes = array("const cuplug_type *", { f32 }), nargs = 1,
})
check(api.resolve_call(call))
local sig = new("cuplug_type_info", { type = call.signature })
check(api.type_info(sig))
local sqrt_symbol = ffi.string(call.symbol)
assert(call.abi == cuplug.CUPLUG_ABI_C and ffi.string(sig.name) == "float32(float32)",
       "math.sqrt(float32) resolved to an unexpected " .. ffi.string(sig.name))
print(("math.sqrt(float32) resolves to %s, @%s under the C ABI"):format(ffi.string(sig.name), sqrt_symbol))

-- 3. the kernel, as a host JIT would emit it for
--      def lerp_sqrt(out, a, b, t):
--          i = cuda.grid(1)
--          if i < a.size:
--              out[i] = math.sqrt(ext_lerp(a[i], b[i], t))
--    with signature void(float32[::1], float32[::1], float32[::1], float32),
--    under the C ABI (entry_abi C: `void k(args)`, no status return).  Each
--    array arrives as meminfo, parent, nitems, itemsize, data, shape, strides.
local function array_params(name)
  return ('i8* %"N.0", i8* %"N.1", i64 %"N.2", i64 %"N.3", float* %"N.4", i64 %"N.5.0", i64 %"N.6.0"')
    :gsub("N", name)
end
local ir = ([[
target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"

define void @"lerp_sqrt"(@@OUT, @@A, @@B, float %"t")
{
entry:
  %"tid" = call i32 @"llvm.nvvm.read.ptx.sreg.tid.x"()
  %"ntid" = call i32 @"llvm.nvvm.read.ptx.sreg.ntid.x"()
  %"ctaid" = call i32 @"llvm.nvvm.read.ptx.sreg.ctaid.x"()
  %"block" = mul i32 %"ctaid", %"ntid"
  %"i32" = add i32 %"block", %"tid"
  %"i" = sext i32 %"i32" to i64
  %"in" = icmp slt i64 %"i", %"a.5.0"
  br i1 %"in", label %"body", label %"done"
body:
  %"pa" = getelementptr float, float* %"a.4", i64 %"i"
  %"va" = load float, float* %"pa"
  %"pb" = getelementptr float, float* %"b.4", i64 %"i"
  %"vb" = load float, float* %"pb"
  %"l" = call float @"ext_lerp"(float %"va", float %"vb", float %"t")
  %"r" = call float @"@@SQRT"(float %"l")
  %"po" = getelementptr float, float* %"out.4", i64 %"i"
  store float %"r", float* %"po"
  br label %"done"
done:
  ret void
}

declare float @"ext_lerp"(float, float, float)
declare float @"@@SQRT"(float)
declare i32 @"llvm.nvvm.read.ptx.sreg.tid.x"()
declare i32 @"llvm.nvvm.read.ptx.sreg.ntid.x"()
declare i32 @"llvm.nvvm.read.ptx.sreg.ctaid.x"()

!nvvmir.version = !{ !0 }
!0 = !{ i32 2, i32 0, i32 3, i32 2 }
]]):gsub("@@(%w+)", { OUT = array_params("out"), A = array_params("a"), B = array_params("b"),
                         SQRT = sqrt_symbol })

-- 4. compiled and linked with LTO into a cubin: for this GPU, else sm_90
local module = new("cuplug_module", { name = "lerp_sqrt.ll", text = ir, size = #ir })
local compile = new("cuplug_compile_args", {
  session = session,
  modules = array("const cuplug_module *", { module }),
  num_modules = 1,
  entry = "lerp_sqrt",
  signature = "void(float32[::1], float32[::1], float32[::1], float32)",
  entry_abi = cuplug.CUPLUG_ABI_C,
  kind = cuplug.CUPLUG_KERNEL,
  output = cuplug.CUPLUG_OUTPUT_CUBIN,
  cc_major = gpu and 0 or 9,
  flags = bit.bor(gpu and cuplug.CUPLUG_COMPILE_CURRENT_DEVICE or 0, cuplug.CUPLUG_COMPILE_LINKED_PTX),
})
check(api.compile(compile))
local artifact = compile.artifact
local ai = new("cuplug_artifact_info")
check(api.artifact_info(artifact, ai))
local cubin = cuplug.string(ai.data, ai.size)
assert(ai.output == cuplug.CUPLUG_OUTPUT_CUBIN and ai.size > 0, "compile gave no cubin")
assert(cubin:sub(1, 4) == "\127ELF", "the cubin is no ELF image")
assert(cubin:find("lerp_sqrt", 1, true), "the cubin lacks the kernel lerp_sqrt")
local ptx = new("cuplug_part")
check(api.artifact_part(artifact, 1, ptx))
local linked = cuplug.string(ptx.data, ptx.size)
local inlined = not linked:find("ext_lerp", 1, true) and not linked:find(sqrt_symbol, 1, true)
print(("lerp_sqrt + lerp.cu: a %d-byte cubin for sm_%d%d holding lerp_sqrt, linked with LTO; "
       .. "ext_lerp and math.sqrt inlined: %s"):format(tonumber(ai.size), ai.cc_major, ai.cc_minor,
                                                       inlined and "yes" or "no"))

-- 5. launched over 1M elements, each checked against Lua: on the GPU, from
--    the cubin; without one, on this CPU, the same IR compiled for it
local N, T = 2 ^ 20, 0.25
local library
if gpu then
  local load = new("cuplug_load_args", { session = session, artifact = artifact })
  check(api.load(load))
  library = load.library
else
  library = compile_for_host("lerp_sqrt.ll", ir, "lerp_sqrt",
                             "void(float32[::1], float32[::1], float32[::1], float32)",
                             cuplug.CUPLUG_KERNEL)
end
local kernel = new("cuplug_kernel_args", { library = library })
check(api.kernel_get(kernel))
local a, b, out = ffi.new("float[?]", N), ffi.new("float[?]", N), ffi.new("float[?]", N)
for i = 0, N - 1 do
  a[i] = (i % 1000) / 250    -- 0 .. 4
  b[i] = (i * 7 % 1000) / 100 -- 0 .. 10
end
local bytes = N * ffi.sizeof("float")
-- an array's data: device memory on the GPU, the Lua-owned floats on the host
local function kernel_array(host)
  local p = ffi.new("uint64_t[1]", ffi.cast("uintptr_t", host))
  if gpu then
    check(api.mem_alloc(session, bytes, p))
    check(api.memcpy_to_device(session, p[0], host, bytes))
  end
  return ffi.new("cuplug_array", { data = p[0], dtype = cuplug.CUPLUG_TYPE_FLOAT32, ndim = 1,
                                   shape = { N }, strides = { 4 } })
end
local kout, ka, kb = kernel_array(out), kernel_array(a), kernel_array(b)
local t = ffi.new("float[1]", T)
local ARRAY = cuplug.CUPLUG_TYPE_ARRAY
local launch = new("cuplug_launch_args", {
  kernel = kernel.kernel, grid = { N / 256, 1, 1 }, block = { 256, 1, 1 },
  args = array("cuplug_value", { { ARRAY, kout }, { ARRAY, ka }, { ARRAY, kb },
                                 { cuplug.CUPLUG_TYPE_FLOAT32, t } }),
  num_args = 4,
})
check(api.launch(launch))
if gpu then check(api.memcpy_to_host(session, out, kout.data, bytes)) end
local wrong = 0
for i = 0, N - 1 do
  local want = math.sqrt(a[i] + T * (b[i] - a[i]))
  if math.abs(out[i] - want) > 4e-7 * math.max(1, want) then wrong = wrong + 1 end
end
print(("launched on %s: %d of %d elements wrong; out[999] = %.7g"):format(
  gpu and ffi.string(info.device_name) or "this CPU (no GPU: cuplug's host target)",
  wrong, N, out[999]))
if gpu then
  for _, d in ipairs({ kout, ka, kb }) do check(api.mem_free(session, d.data)) end
end
api.library_unload(library)
api.library_unload(lerp_host)
api.artifact_destroy(artifact)
api.session_destroy(session)
os.exit(wrong == 0 and 0 or 1)
