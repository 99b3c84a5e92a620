// Must NOT compile: a pointer parameter (the server cannot see what it points to).
#include <refwire/rpc/detail/method.hpp>

struct store {
  virtual ~store() = default;
  virtual void put(int key, const char* value) = 0;
};
BOOST_DESCRIBE_STRUCT(store, (), (put))

int main() { return static_cast<int>(refwire::rpc::detail::methods_of<store>().size()); }
