// Must NOT compile: a member function that BOOST_DESCRIBE_STRUCT does not list is not a method.
#include <refwire/rpc/detail/method.hpp>

struct calculator {
  virtual ~calculator() = default;
  virtual int add(int a, int b) = 0;
  virtual int hidden(int a) = 0;
};
BOOST_DESCRIBE_STRUCT(calculator, (), (add))

int main() { return static_cast<int>(refwire::rpc::detail::method<&calculator::hidden>::id); }
