// Must NOT compile: a parameter no codec can carry.
#include <functional>

#include <refwire/rpc/detail/method.hpp>

struct scheduler {
  virtual ~scheduler() = default;
  virtual void run(int delay, std::function<void()> job) = 0;
};
BOOST_DESCRIBE_STRUCT(scheduler, (), (run))

int main() { return static_cast<int>(refwire::rpc::detail::methods_of<scheduler>().size()); }
