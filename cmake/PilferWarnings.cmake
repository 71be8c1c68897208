# Warning flags shared by every pilfer target (not exported to users).
add_library(pilfer_warnings INTERFACE)
target_compile_options(pilfer_warnings INTERFACE
  $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow>
  # g++ warns when hardware_destructive_interference_size is used in a header (ABI note); we use our own constant.
  $<$<CXX_COMPILER_ID:GNU>:-Wno-interference-size>)
if(PILFER_WERROR)
  target_compile_options(pilfer_warnings INTERFACE -Werror)
endif()
