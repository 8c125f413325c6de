# The layers of ../shared/ARCHITECTURE.md as targets. Each layer is an OBJECT library that may use
# only the layers under it:
#
#   graphrt_core      runtime/core             Tensor, Status, types, attrs, clock     proto
#   graphrt_formats   formats/ (not keras/)    GraphDef, SavedModel, checkpoints, npy  core
#   graphrt_runtime   runtime/ (the rest)      graph, ops, kernels, devices, session   formats
#   graphrt_opencl    runtime/*/opencl         OpenCL GPUs (GRAPHRT_WITH_OPENCL)       runtime
#   graphrt_keras     formats/keras, session/keras_model.cc  Keras .h5, .keras (GRAPHRT_WITH_HDF5)  runtime
#   graphrt_migrate   migrate/                 checkpoint and graph transforms         runtime (keras)
#
# Their objects make libgraphrt.so (`graphrt`, installed: the public headers of include/graphrt
# are its API, every other symbol is hidden) and graphrt_static (the in-tree programs: the
# command, tests, benches and fuzzers, which reach internals). With GRAPHRT_LAYER_CHECK each layer
# is also linked alone into a shared library with -Wl,--no-undefined, so a layer that calls into
# one above it fails the build; tests/layer_check.py checks the #include lines against the same
# table.

configure_file(${PROJECT_SOURCE_DIR}/cmake/graphrt_build_config.h.in
               ${PROJECT_BINARY_DIR}/internal/graphrt_build_config.h @ONLY)

function(graphrt_sources out)
  set(files "")
  foreach(pattern IN LISTS ARGN)
    file(GLOB found CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${pattern})
    list(APPEND files ${found})
  endforeach()
  list(FILTER files EXCLUDE REGEX "_test\\.cc$")
  set(${out} ${files} PARENT_SCOPE)
endfunction()

# graphrt_layer(NAME SOURCES ... DEPS <layers under it> LIBS <outside libraries>)
function(graphrt_layer name)
  cmake_parse_arguments(L "" "" "SOURCES;DEPS;LIBS" ${ARGN})
  add_library(${name} OBJECT ${L_SOURCES})
  target_include_directories(${name} PUBLIC ${GRAPHRT_INTERNAL_INCLUDES})
  target_link_libraries(${name} PUBLIC ${L_DEPS} ${L_LIBS})
  target_compile_options(${name} PRIVATE ${GRAPHRT_WARNINGS})
  set_target_properties(${name} PROPERTIES CXX_VISIBILITY_PRESET hidden
                                           VISIBILITY_INLINES_HIDDEN ON)
  # What a library made of this layer's objects links: the libraries of the layers under it too.
  set(libs ${L_LIBS})
  foreach(dep IN LISTS L_DEPS)
    list(APPEND libs ${GRAPHRT_LIBS_${dep}})
  endforeach()
  list(REMOVE_DUPLICATES libs)
  set(GRAPHRT_LIBS_${name} ${libs} PARENT_SCOPE)
endfunction()

set(GRAPHRT_INTERNAL_INCLUDES ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/include
    ${PROJECT_BINARY_DIR}/include ${PROJECT_BINARY_DIR}/internal)
set(GRAPHRT_LIBS_graphrt_proto_objects protobuf::libprotobuf)

graphrt_sources(core_sources runtime/core/*.cc)
graphrt_layer(graphrt_core SOURCES ${core_sources} DEPS graphrt_proto_objects
              LIBS Eigen3::Eigen Threads::Threads)

graphrt_sources(formats_sources formats/*.cc formats/tensor_bundle/*.cc)
graphrt_layer(graphrt_formats SOURCES ${formats_sources} DEPS graphrt_core
              LIBS ${SNAPPY_LIBRARY} nlohmann_json::nlohmann_json)

graphrt_sources(runtime_sources runtime/graph/*.cc runtime/ops/*.cc runtime/devices/*.cc
                runtime/kernels/*.cc runtime/kernels/common/*.cc runtime/kernels/cpu/*.cc
                runtime/kernels/cpu/isa/*.cc
                runtime/placement/*.cc runtime/optimize/*.cc runtime/exec/*.cc
                runtime/session/*.cc)
# Kernels compiled once per instruction set (runtime/kernels/cpu/cpu_isa.h): a file named
# *_avx2.cc, *_avx512.cc or *_avx512vnni.cc gets that path's flags and runs only after a cpuid
# check; everything else stays baseline x86-64 (scripts/check_portable.sh checks the library).
set(GRAPHRT_ISA_FLAGS_avx2 -mavx2 -mfma)
set(GRAPHRT_ISA_FLAGS_avx512 -mavx512f -mavx512bw -mavx512dq -mavx512vl -mfma)
set(GRAPHRT_ISA_FLAGS_avx512vnni ${GRAPHRT_ISA_FLAGS_avx512} -mavx512vnni)
# The int8 output stage must round each product and sum on its own, as the float path it stands
# for does: no fused multiply-adds there (GCC contracts C++ by default).
foreach(file IN LISTS runtime_sources)
  if(file MATCHES "_(avx2|avx512|avx512vnni)\\.cc$")
    set(isa_flags ${GRAPHRT_ISA_FLAGS_${CMAKE_MATCH_1}})
    if(file MATCHES "/int8_output_[a-z0-9]+\\.cc$")
      list(APPEND isa_flags -ffp-contract=off)
    endif()
    set_source_files_properties(${file} PROPERTIES COMPILE_OPTIONS "${isa_flags}")
  endif()
endforeach()
set(keras_session_sources ${PROJECT_SOURCE_DIR}/runtime/session/keras_model.cc)
list(REMOVE_ITEM runtime_sources ${keras_session_sources})
graphrt_layer(graphrt_runtime SOURCES ${runtime_sources} DEPS graphrt_formats
              LIBS ${RE2_LIBRARY} ICU::uc JPEG::JPEG PNG::PNG GIF::GIF)

set(GRAPHRT_LAYERS graphrt_core graphrt_formats graphrt_runtime)

if(GRAPHRT_WITH_OPENCL)
  graphrt_sources(opencl_sources runtime/devices/opencl/*.cc runtime/kernels/opencl/*.cc)
  graphrt_layer(graphrt_opencl SOURCES ${opencl_sources} DEPS graphrt_runtime
                LIBS OpenCL::OpenCL ${CLBLAST_LIBRARY})
  target_compile_definitions(graphrt_opencl PUBLIC CL_TARGET_OPENCL_VERSION=120)
  list(APPEND GRAPHRT_LAYERS graphrt_opencl)
endif()

if(GRAPHRT_WITH_HDF5)
  graphrt_sources(keras_sources formats/keras/*.cc)
  list(APPEND keras_sources ${keras_session_sources})
  graphrt_layer(graphrt_keras SOURCES ${keras_sources} DEPS graphrt_runtime
                LIBS ${HDF5_C_LIBRARIES} ZLIB::ZLIB nlohmann_json::nlohmann_json)
  target_include_directories(graphrt_keras SYSTEM PUBLIC ${HDF5_INCLUDE_DIRS})
  list(APPEND GRAPHRT_LAYERS graphrt_keras)
endif()

graphrt_sources(migrate_sources migrate/*.cc)
set(migrate_keras_sources ${PROJECT_SOURCE_DIR}/migrate/keras_weights.cc)
list(REMOVE_ITEM migrate_sources ${migrate_keras_sources})
set(migrate_deps graphrt_runtime)
if(GRAPHRT_WITH_HDF5)
  list(APPEND migrate_sources ${migrate_keras_sources})
  set(migrate_deps graphrt_keras)
endif()
graphrt_layer(graphrt_migrate SOURCES ${migrate_sources} DEPS ${migrate_deps}
              LIBS ${RE2_LIBRARY} nlohmann_json::nlohmann_json)
list(APPEND GRAPHRT_LAYERS graphrt_migrate)

# The objects of the given layers and the protos, and the libraries they link.
function(graphrt_layer_objects out_objects out_libs)
  set(objects $<TARGET_OBJECTS:graphrt_proto_objects>)
  set(libs "")
  foreach(layer IN LISTS ARGN)
    list(APPEND objects $<TARGET_OBJECTS:${layer}>)
    list(APPEND libs ${GRAPHRT_LIBS_${layer}})
  endforeach()
  list(REMOVE_DUPLICATES libs)
  set(${out_objects} ${objects} PARENT_SCOPE)
  set(${out_libs} ${libs} PARENT_SCOPE)
endfunction()

# libgraphrt.so: the installed library. Its output stays in <build>/runtime, where
# ../shared/bench/build.sh looks for it.
graphrt_layer_objects(all_objects all_libs ${GRAPHRT_LAYERS})
add_library(graphrt SHARED ${all_objects})
add_library(graphrt::graphrt ALIAS graphrt)
set_target_properties(graphrt PROPERTIES
  LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/runtime
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
  EXPORT_NAME graphrt)
target_include_directories(graphrt PUBLIC
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
  $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/proto>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/graphrt/proto>)
list(REMOVE_ITEM all_libs protobuf::libprotobuf Eigen3::Eigen)
target_link_libraries(graphrt PUBLIC protobuf::libprotobuf Eigen3::Eigen
                      PRIVATE ${all_libs})
# Sanitizer and fuzzer runtimes are linked into executables only, so their builds leave shared
# libraries with undefined symbols: the check is for ordinary builds.
set(GRAPHRT_NO_UNDEFINED -Wl,--no-undefined)
if(GRAPHRT_SANITIZE OR GRAPHRT_FUZZ)
  set(GRAPHRT_NO_UNDEFINED "")
endif()
target_link_options(graphrt PRIVATE ${GRAPHRT_NO_UNDEFINED})

# graphrt_static: every layer, all symbols reachable, for the in-tree programs (the command,
# tests, benches, fuzzers). Its usage requirements are the layers' (internal include paths).
add_library(graphrt_static STATIC ${all_objects})
target_link_libraries(graphrt_static INTERFACE ${GRAPHRT_LAYERS} PUBLIC ${all_libs}
                      protobuf::libprotobuf Eigen3::Eigen)
if(GRAPHRT_WITH_OPENCL)
  # Nothing calls the OpenCL backend's registrar (it registers itself): keep its object.
  target_link_options(graphrt_static INTERFACE -Wl,-u,graphrt_opencl_backend)
endif()

if(GRAPHRT_LAYER_CHECK AND GRAPHRT_NO_UNDEFINED)
  # Each layer with the ones under it and their libraries only, linked with --no-undefined.
  set(checks "graphrt_core" "graphrt_core graphrt_formats"
      "graphrt_core graphrt_formats graphrt_runtime")
  if(GRAPHRT_WITH_OPENCL)
    list(APPEND checks "graphrt_core graphrt_formats graphrt_runtime graphrt_opencl")
  endif()
  if(GRAPHRT_WITH_HDF5)
    list(APPEND checks "graphrt_core graphrt_formats graphrt_runtime graphrt_keras")
    list(APPEND checks "graphrt_core graphrt_formats graphrt_runtime graphrt_keras graphrt_migrate")
  else()
    list(APPEND checks "graphrt_core graphrt_formats graphrt_runtime graphrt_migrate")
  endif()
  add_custom_target(graphrt_layer_check ALL)
  foreach(check IN LISTS checks)
    separate_arguments(layers UNIX_COMMAND "${check}")
    list(GET layers -1 top)
    graphrt_layer_objects(objects libs ${layers})
    add_library(${top}_alone SHARED ${objects})
    set_target_properties(${top}_alone PROPERTIES
      LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/layer_check)
    target_link_libraries(${top}_alone PRIVATE ${libs})
    target_link_options(${top}_alone PRIVATE -Wl,--no-undefined)
    add_dependencies(graphrt_layer_check ${top}_alone)
  endforeach()
endif()
