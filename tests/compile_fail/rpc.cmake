# RPC methods (refwire/rpc/detail/method.hpp): a member pointer that is not a
# described method, and parameters no codec can carry. One error each; the
# notes name the interface, the method and the parameter's 1-based position.
# Included from CMakeLists.txt (refwire_compile_fail_checks).
refwire_compile_fail_checks(rpc_method_not_described.cpp
  REQUIRE "refwire: method<&I::m>: m is not one of the methods BOOST_DESCRIBE_STRUCT\\(I, \\.\\.\\.\\) lists: add it there \\(overloaded methods are not supported\\)"
  MAX_ERRORS 1)
refwire_compile_fail_checks(rpc_method_not_member.cpp
  REQUIRE "refwire: method<M>: M must be a pointer to a member function of an interface \\(&interface::method\\)"
  MAX_ERRORS 1)
refwire_compile_fail_checks(rpc_parameter_pointer.cpp
  REQUIRE "refwire: a parameter of this RPC method is a pointer, which is not serializable"
          "(Interface = store; auto Method = &store::put; [^;]*Position = 2; Parameter = const char ?\\*|parameter_check<store, &store::put, 2(UL)?, const char ?\\*>)"
  MAX_ERRORS 1)
refwire_compile_fail_checks(rpc_parameter_not_serializable.cpp
  REQUIRE "refwire: a parameter of this RPC method is not serializable in every codec \\(binary, json, protobuf\\)"
          "(Interface = scheduler; auto Method = &scheduler::run; [^;]*Position = 2; Parameter = std::function|parameter_check<scheduler, &scheduler::run, 2(UL)?, std::function)"
  MAX_ERRORS 1)
