# gpu_module.cmake - the body of the gpu.module in IN (mlir-opt's output:
# a container module holding one gpu.module) written to OUT as a module of
# its own, which mlir-translate turns into LLVM IR.  A compiler built on
# MLIR hands the gpu.module to translateModuleToLLVMIR itself; the command
# line tools translate only the top-level module.
#
#   cmake -DIN=lowered.mlir -DOUT=kernels.mlir -P gpu_module.cmake
file(READ ${IN} text)
string(REGEX MATCH "\n *gpu\\.module @[A-Za-z0-9_]+ *{\n" head "${text}")
if(NOT head)
  message(FATAL_ERROR "${IN}: no gpu.module")
endif()
string(FIND "${text}" "${head}" at)
string(LENGTH "${head}" head_len)
math(EXPR body_at "${at} + ${head_len}")
string(SUBSTRING "${text}" ${body_at} -1 body)
# the container's closing brace: the last line that is only "}"
string(REGEX REPLACE "\n}[ \n]*$" "\n" body "${body}")
file(WRITE ${OUT} "module {\n${body}")
