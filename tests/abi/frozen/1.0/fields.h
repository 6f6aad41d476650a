/* fields.h - the fields of each struct of the 1.0 header, for the ABI test host
 * (abi_host.c).  Written by tests/abi/layout.py --fields; ctest abi.layout
 * checks it is current. */
#define CUPLUG_FIELDS_cuplug_api(X) X(struct_size) X(abi_major) X(abi_minor) X(error_code) X(error_message) X(error_log) X(error_destroy) X(status_name) X(get_info) X(type_parse) X(type_scalar) X(type_pointer) X(type_array) X(type_signature) X(type_info) X(type_lower) X(session_create) X(session_destroy) X(compile) X(artifact_info) X(artifact_warning) X(artifact_ir) X(artifact_destroy)
#define CUPLUG_FIELDS_cuplug_artifact_info(X) X(struct_size) X(output) X(data) X(size) X(symbol) X(log) X(cc_major) X(cc_minor) X(kind) X(debug) X(lineinfo) X(max_registers) X(num_warnings) X(num_ir_modules)
#define CUPLUG_FIELDS_cuplug_compile_args(X) X(struct_size) X(session) X(modules) X(num_modules) X(entry) X(signature) X(signature_type) X(artifact) X(entry_abi) X(kind) X(abi) X(abi_name) X(output) X(cc_major) X(cc_minor) X(opt) X(debug) X(lineinfo) X(fastmath) X(forceinline) X(launch_bounds) X(num_launch_bounds) X(max_registers) X(flags)
#define CUPLUG_FIELDS_cuplug_info(X) X(struct_size) X(cuplug_version) X(abi_major) X(abi_minor) X(nvvm_major) X(nvvm_minor) X(nvvm_ir_major) X(nvvm_ir_minor) X(nvvm_dbg_major) X(nvvm_dbg_minor) X(nvrtc_major) X(nvrtc_minor) X(nvjitlink_major) X(nvjitlink_minor) X(driver_version) X(device_count) X(device_cc_major) X(device_cc_minor) X(device_name) X(nvvm_path) X(nvvm_status) X(nvrtc_status) X(nvjitlink_status) X(driver_status)
#define CUPLUG_FIELDS_cuplug_ir_view(X) X(struct_size) X(name) X(text) X(size)
#define CUPLUG_FIELDS_cuplug_module(X) X(struct_size) X(name) X(text) X(size)
#define CUPLUG_FIELDS_cuplug_session_options(X) X(struct_size) X(cuda_home) X(default_cc_major) X(default_cc_minor)
#define CUPLUG_FIELDS_cuplug_type_info(X) X(struct_size) X(type) X(kind) X(name) X(element) X(ndim) X(layout) X(restype) X(num_args) X(args) X(size)
#define CUPLUG_FIELDS_cuplug_type_lower_args(X) X(struct_size) X(type) X(abi) X(position) X(ir_type) X(num_parts) X(parts)
