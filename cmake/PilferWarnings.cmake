# Warning flags shared by every pilfer target (not exported to users).
add_library(pilfer_warnings INTERFACE)
target_compile_options(pilfer_warnings INTERFACE
  $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wno-interference-size>)
if(PILFER_WERROR)
  target_compile_options(pilfer_warnings INTERFACE -Werror)
endif()
