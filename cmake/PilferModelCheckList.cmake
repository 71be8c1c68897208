# Run by pilfer_add_model_check() after a build: cmake -DEXE=<program> -DOUT=<file> -P PilferModelCheckList.cmake
# writes the program's scenario names (`<program> --list`) to OUT, one a line.
execute_process(COMMAND "${EXE}" --list OUTPUT_FILE "${OUT}.tmp" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUT}.tmp" "${OUT}")
  message(FATAL_ERROR "pilfer_add_model_check: '${EXE} --list' failed (${rc})")
endif()
file(RENAME "${OUT}.tmp" "${OUT}")
