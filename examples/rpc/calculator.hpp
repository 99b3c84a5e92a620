// The interface both sides share: a struct of pure virtual functions,
// described once. Client and server are built from this one header.
#pragma once
#include <refwire/rpc.hpp>

#include <string>
#include <vector>

struct point {
  int x = 0;
  double y = 0;
  std::string name;
};
BOOST_DESCRIBE_STRUCT(point, (), (x, y, name))

struct calculator {
  virtual ~calculator() = default;
  virtual int add(int a, int b) = 0;
  virtual std::vector<point> range(int n) = 0;
  virtual void log(std::string line) = 0;
};
BOOST_DESCRIBE_STRUCT(calculator, (), (add, range, log))
REFWIRE_NAME(calculator, "calc.v1")
