-- cuplug.lua - a small LuaJIT FFI binding of cuplug, made from its header.
--
-- The declarations come from the public header itself (cuplug/cuplug.h),
-- not from a copy: the header is read, its comments, preprocessor lines and
-- `#ifdef __cplusplus` blocks are dropped, the CUPLUG_EXPORT macro is
-- removed, and the rest goes to ffi.cdef.  Integer #defines (the ABI
-- version, flag bits, CUPLUG_OPT_NONE) are read with Lua patterns and
-- become fields of the module; enum constants come from the FFI.
--
--   local cuplug = require("cuplug")
--   local api = cuplug.open(library, header)  -- or $CUPLUG_LIBRARY, $CUPLUG_HEADER
--   local s = ffi.new("cuplug_session*[1]")
--   cuplug.check(api.session_create(nil, s))
--
-- Strings and arrays stored in a struct made by cuplug.new or cuplug.array
-- are kept alive as long as that struct is (the FFI itself would not).
local ffi = require("ffi")

local M = {}
local defines = {}  -- integer #defines of the header
local anchors = setmetatable({}, { __mode = "k" })  -- struct -> what it points at

-- The header's text as ffi.cdef takes it, and its integer #defines.
function M.parse_header(text)
  text = text:gsub("\r\n", "\n")
  text = text:gsub("/%*.-%*/", " ")    -- block comments (none nest in C)
  text = text:gsub("//[^\n]*", "")     -- line comments
  text = text:gsub("\\\n", " ")        -- macro continuation lines
  local consts = {}
  for line in text:gmatch("[^\n]+") do
    local name, value = line:match("^%s*#%s*define%s+([%w_]+)%s+(.-)%s*$")
    if name then
      -- 1, 0x4u, (-1): without parentheses and integer suffixes
      value = value:gsub("^%((.*)%)$", "%1")
      value = value:match("^(%-?0[xX]%x+)[uUlL]*$") or value:match("^(%-?%d+)[uUlL]*$")
      consts[name] = value and tonumber(value)
    end
  end
  text = text:gsub("#[ \t]*ifdef[ \t]+__cplusplus.-#[ \t]*endif", "")  -- extern "C" { ... }
  text = text:gsub("\n[ \t]*#[^\n]*", "\n")  -- every other preprocessor line
  text = text:gsub("^[ \t]*#[^\n]*", "")
  text = text:gsub("CUPLUG_EXPORT", "")
  return text, consts
end

local function read(path)
  local f, why = io.open(path, "rb")
  if not f then error("cuplug.lua: cannot read the header: " .. why, 3) end
  local text = f:read("*a")
  f:close()
  return text
end

-- Loads the plugin and negotiates the ABI.  `library` and `header` default
-- to $CUPLUG_LIBRARY and $CUPLUG_HEADER.  Returns the function table (its
-- abi_minor says which calls exist: see cuplug.has).  Once per process, as
-- ffi.cdef cannot declare the types twice: later calls return that table.
function M.open(library, header)
  if M.api then return M.api end
  library = library or os.getenv("CUPLUG_LIBRARY")
  header = header or os.getenv("CUPLUG_HEADER")
  for name, value in pairs({ library = library, header = header }) do
    if not value then
      local env = name == "library" and "CUPLUG_LIBRARY" or "CUPLUG_HEADER"
      error(("cuplug.lua: no %s: give its path, or set %s"):format(name, env), 2)
    end
  end
  local cdef
  cdef, defines = M.parse_header(read(header))
  ffi.cdef(cdef)
  M.lib = ffi.load(library)  -- kept: the plugin stays loaded while M lives
  local api = M.lib.cuplug_get_api(defines.CUPLUG_ABI_MAJOR, defines.CUPLUG_ABI_MINOR)
  if api == nil then
    error(("cuplug.lua: %s does not speak ABI %d.x"):format(library, defines.CUPLUG_ABI_MAJOR), 2)
  end
  M.api = api
  return api
end

-- cuplug.CUPLUG_ABI_MINOR, cuplug.CUPLUG_COMPILE_CURRENT_DEVICE (a #define),
-- cuplug.CUPLUG_KERNEL (an enum constant): all plain Lua numbers.
setmetatable(M, {
  __index = function(_, name)
    if defines[name] then return defines[name] end
    if type(name) == "string" and name:match("^CUPLUG_") then
      local ok, v = pcall(function() return ffi.C[name] end)
      if ok then return tonumber(v) end
    end
  end,
})

-- Whether the table holds `member`: the CUPLUG_API_HAS macro, which the FFI
-- cannot take (every member is a function pointer).
function M.has(member)
  return M.api.struct_size >= ffi.offsetof("cuplug_api", member) + ffi.sizeof("void *")
end

function M.status_name(code)
  return ffi.string(M.api.status_name(code))
end

-- Raises a Lua error "CUPLUG_ERR_...: message" (and the toolkit's log, if
-- any) for a non-NULL error, which it destroys.  Returns nothing otherwise.
function M.check(err, level)
  if err == nil then return end
  local api = M.api
  local msg = M.status_name(api.error_code(err)) .. ": " .. ffi.string(api.error_message(err))
  local log = ffi.string(api.error_log(err))
  api.error_destroy(err)
  if log ~= "" then msg = msg .. "\n" .. log end
  error(msg, (level or 1) + 1)
end

-- A struct with struct_size set, the other fields from `init` (Lua strings
-- and cdata it names stay alive with the struct).
function M.new(ctype, init)
  local v = ffi.new(ctype, init or {})
  v.struct_size = ffi.sizeof(ctype)
  anchors[v] = init
  return v
end

-- A C array of `ctype` from a Lua list (strings and cdata it holds stay
-- alive with the array): cuplug.array("const cuplug_code *", {code}).
function M.array(ctype, list)
  local v = ffi.new(ctype .. "[?]", #list, list)
  anchors[v] = list
  return v
end

-- A string from a pointer and a size, or a NUL-terminated one.
function M.string(ptr, size)
  if ptr == nil then return "" end
  return ffi.string(ffi.cast("const char *", ptr), size)
end

return M
