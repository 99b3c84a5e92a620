#pragma once
// refwire/rpc/error.hpp: what a failed call throws.
//
//   try {
//     int r = calc.call<&calculator::add>(2, 3);
//   } catch (const refwire::rpc::remote_error& e) {   // the handler threw
//     std::cerr << e.type() << ": " << e.what() << '\n';
//   } catch (const refwire::rpc::rpc_error& e) {      // the call did not complete
//     std::cerr << refwire::rpc::to_string(e.code()) << ": " << e.what() << '\n';
//   }

#include <stdexcept>
#include <string>
#include <utility>

#include <refwire/rpc/status.hpp>

namespace refwire::rpc {

/// A call that failed, with its canonical status code. Not a decode_error:
/// a payload that does not decode is invalid_argument here, with the decode
/// error's text in what().
///
///   throw refwire::rpc::rpc_error(refwire::rpc::status_code::invalid_argument, "n must be positive");
///   // thrown by a handler, the caller gets a remote_error with that code
class rpc_error : public std::runtime_error {
 public:
  rpc_error(status_code code, const std::string& message) : std::runtime_error(message), code_(code) {}
  [[nodiscard]] status_code code() const noexcept { return code_; }

 private:
  status_code code_;
};

/// The handler threw: what() is its message, type() its type name
/// ("std::out_of_range"), code() internal (or the code of an rpc_error the handler threw).
/// The connection stays usable.
class remote_error : public rpc_error {
 public:
  remote_error(status_code code, std::string type, const std::string& message)
      : rpc_error(code, message), type_(std::move(type)) {}
  [[nodiscard]] const std::string& type() const noexcept { return type_; }

 private:
  std::string type_;
};

}  // namespace refwire::rpc
