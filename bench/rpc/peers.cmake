# bench/rpc/peers.cmake: the gRPC and Cap'n Proto peers of bench_rpc (peer.hpp).
# Included by bench/rpc/CMakeLists.txt after the bench_rpc target exists.
# Needs libgrpc++-dev + protobuf-compiler-grpc and libcapnp-dev + capnproto.
find_package(gRPC CONFIG REQUIRED)        # gRPC::grpc++, gRPC::grpc_cpp_plugin
# CapnProtoConfig.cmake (0.9.2) looks for libatomic with check_library_exists,
# which fails in a project without the C language (its test program, compiled
# as C++, redeclares a builtin). Answer the same question with a C++ check.
if(NOT REFWIRE_HAVE_LIBATOMIC)
  include(CheckCXXSourceCompiles)
  include(CMakePushCheckState)
  cmake_push_check_state(RESET)
  set(CMAKE_REQUIRED_LIBRARIES atomic)
  check_cxx_source_compiles("#include <atomic>
int main() { std::atomic<long long> a{0}; return static_cast<int>(a.load()); }" REFWIRE_HAVE_LIBATOMIC)
  cmake_pop_check_state()
endif()
set(FOUND_LIBATOMIC ${REFWIRE_HAVE_LIBATOMIC} CACHE INTERNAL "libatomic links (checked in C++)")
find_package(CapnProto CONFIG REQUIRED)   # CapnProto::capnp-rpc, CAPNP_EXECUTABLE, CAPNPC_CXX_EXECUTABLE
if(NOT Protobuf_PROTOC_EXECUTABLE)
  find_package(Protobuf REQUIRED)
endif()

set(_rpc_src ${CMAKE_CURRENT_LIST_DIR})
set(_rpc_gen ${CMAKE_CURRENT_BINARY_DIR}/generated)
file(MAKE_DIRECTORY ${_rpc_gen})

add_custom_command(
  OUTPUT ${_rpc_gen}/rpc_peers.pb.cc ${_rpc_gen}/rpc_peers.pb.h
         ${_rpc_gen}/rpc_peers.grpc.pb.cc ${_rpc_gen}/rpc_peers.grpc.pb.h
  COMMAND ${Protobuf_PROTOC_EXECUTABLE} -I ${_rpc_src}
          --cpp_out=${_rpc_gen} --grpc_out=${_rpc_gen}
          --plugin=protoc-gen-grpc=$<TARGET_FILE:gRPC::grpc_cpp_plugin>
          ${_rpc_src}/rpc_peers.proto
  DEPENDS ${_rpc_src}/rpc_peers.proto
  COMMENT "protoc + grpc_cpp_plugin: generating rpc_peers.{pb,grpc.pb}.{h,cc}"
  VERBATIM)
add_custom_command(
  OUTPUT ${_rpc_gen}/rpc_peers.capnp.c++ ${_rpc_gen}/rpc_peers.capnp.h
  COMMAND ${CAPNP_EXECUTABLE} compile -o${CAPNPC_CXX_EXECUTABLE}:${_rpc_gen}
          --src-prefix=${_rpc_src} -I ${CAPNP_INCLUDE_DIRECTORY}
          ${_rpc_src}/rpc_peers.capnp
  DEPENDS ${_rpc_src}/rpc_peers.capnp
  COMMENT "capnp compile: generating rpc_peers.capnp.{h,c++}"
  VERBATIM)

# Generated code, compiled without the project's warning flags; its include
# directory is SYSTEM for the peers' own sources.
add_library(refwire_bench_rpc_gen STATIC
  ${_rpc_gen}/rpc_peers.pb.cc ${_rpc_gen}/rpc_peers.grpc.pb.cc ${_rpc_gen}/rpc_peers.capnp.c++)
target_compile_features(refwire_bench_rpc_gen PUBLIC cxx_std_20)
target_compile_options(refwire_bench_rpc_gen PRIVATE -w)
target_include_directories(refwire_bench_rpc_gen SYSTEM PUBLIC ${_rpc_gen})
target_link_libraries(refwire_bench_rpc_gen PUBLIC
  gRPC::grpc++ protobuf::libprotobuf CapnProto::capnp-rpc CapnProto::kj-async)

# The two peers, once for bench_rpc and the check program. make_range,
# make_order, summarize and make_bytes (shapes.hpp) come from the program.
add_library(refwire_bench_rpc_peers STATIC ${_rpc_src}/peer_grpc.cpp ${_rpc_src}/peer_capnp.cpp)
target_link_libraries(refwire_bench_rpc_peers PUBLIC refwire_bench_rpc_gen refwire::rpc refwire::serialization)
refwire_target_defaults(refwire_bench_rpc_peers)

if(TARGET bench_rpc)
  target_link_libraries(bench_rpc PRIVATE refwire_bench_rpc_peers)
  target_compile_definitions(bench_rpc PRIVATE REFWIRE_BENCH_RPC_PEERS=1)
endif()

# rpc_peer_check: every shape against both peers over unix and tcp, from a
# server process started as bench_rpc starts it (see peer_check.cpp).
add_executable(rpc_peer_check ${_rpc_src}/peer_check.cpp ${_rpc_src}/shapes.cpp)
target_link_libraries(rpc_peer_check PRIVATE refwire_bench_rpc_peers)
refwire_target_defaults(rpc_peer_check)
