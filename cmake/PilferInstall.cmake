# cmake --install support and the package config used by find_package(pilfer CONFIG).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS pilfer EXPORT pilferTargets
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/include/pilfer
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT pilferTargets NAMESPACE pilfer::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pilfer)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/pilferConfig.cmake.in
  ${PROJECT_BINARY_DIR}/pilferConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pilfer)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pilferConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pilferConfig.cmake
              ${PROJECT_BINARY_DIR}/pilferConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pilfer)

# The conformance suite is installed as sources + a CMake function so outside
# projects can run it against their own adapters (see conformance/README.md).
if(EXISTS ${PROJECT_SOURCE_DIR}/conformance/include)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/conformance/include/
          DESTINATION ${CMAKE_INSTALL_DATADIR}/pilfer/conformance/include)
endif()
if(EXISTS ${PROJECT_SOURCE_DIR}/conformance/src)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/conformance/src/
          DESTINATION ${CMAKE_INSTALL_DATADIR}/pilfer/conformance/src)
endif()
if(EXISTS ${PROJECT_SOURCE_DIR}/testing/include)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/testing/include/
          DESTINATION ${CMAKE_INSTALL_DATADIR}/pilfer/testing/include)
endif()
if(EXISTS ${PROJECT_SOURCE_DIR}/cmake/PilferConformance.cmake)
  install(FILES ${PROJECT_SOURCE_DIR}/cmake/PilferConformance.cmake
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pilfer)
endif()

# Component `model` (PILFER_BUILD_MODELS): the checker as pilfer::model (engine + public headers
# <pilfer/model/*.hpp>), pilfer-litmus in bin/ (imported as pilfer::litmus) and
# pilfer_add_model_check() (PilferModelCheck.cmake). Its own export file, so a package built without
# models has none and find_package(pilfer COMPONENTS model) fails saying so (pilferConfig.cmake.in).
if(TARGET pilfer_model)
  set(_pilfer_model_targets pilfer_model)
  if(TARGET pilfer-litmus)
    list(APPEND _pilfer_model_targets pilfer-litmus)
  endif()
  install(TARGETS ${_pilfer_model_targets} EXPORT pilferModelTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/models/include/pilfer/model
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pilfer)
  install(EXPORT pilferModelTargets NAMESPACE pilfer::
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pilfer)
  install(FILES ${PROJECT_SOURCE_DIR}/cmake/PilferModelCheck.cmake
                ${PROJECT_SOURCE_DIR}/cmake/PilferModelCheckList.cmake
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pilfer)
endif()
