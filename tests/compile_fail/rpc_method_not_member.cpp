// Must NOT compile: a method is named by a pointer to a member function (&interface::method).
#include <refwire/rpc/detail/method.hpp>

int add(int a, int b) { return a + b; }

int main() { return static_cast<int>(refwire::rpc::detail::method<&add>::id); }
