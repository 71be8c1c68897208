# conformance/tests/expect_mutants.cmake — CONF-1: every mutant the runner registers has a kill ctest.
#
#   cmake -DRUNNER=<pilfer_conformance> -DMUTANTS=<names without "mutant.", ;-separated> -P expect_mutants.cmake
#
# Reads `RUNNER --list` ("name kind role REQ... [target=REQ]" per implementation) and fails, naming them, when a
# registered mutant has no kill ctest (it is not in MUTANTS), has no target requirement, or when MUTANTS names a
# mutant the runner does not register.
cmake_minimum_required(VERSION 3.20)
if(NOT RUNNER OR NOT MUTANTS)
  message(FATAL_ERROR "usage: cmake -DRUNNER=... -DMUTANTS=... -P expect_mutants.cmake")
endif()
execute_process(COMMAND ${RUNNER} --list OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${RUNNER} --list exited with ${rc}")
endif()
string(REPLACE "\n" ";" lines "${out}")
set(registered "")
set(untargeted "")
foreach(line IN LISTS lines)
  if(line MATCHES "^mutant\\.([^ ]+) [a-z]+ mutant ")
    list(APPEND registered ${CMAKE_MATCH_1})
    if(NOT line MATCHES " target=[A-Z]+-[0-9]+$")
      list(APPEND untargeted ${CMAKE_MATCH_1})
    endif()
  endif()
endforeach()
list(LENGTH registered n)
if(n EQUAL 0)
  message(FATAL_ERROR "the runner registers no mutant: nothing shows that the suite can fail")
endif()
set(missing ${registered})
list(REMOVE_ITEM missing ${MUTANTS})   # registered, no kill ctest
set(unknown ${MUTANTS})
list(REMOVE_ITEM unknown ${registered})  # a kill ctest, no such mutant
if(missing OR unknown OR untargeted)
  message(FATAL_ERROR "mutants without a kill ctest (conformance.mutant.<name>): [${missing}]; kill ctests naming no "
                      "registered mutant: [${unknown}]; mutants without a target requirement: [${untargeted}]")
endif()
message(STATUS "${n} mutants registered, each with a kill ctest and a target requirement")
