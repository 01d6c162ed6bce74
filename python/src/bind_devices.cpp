// devices() and use_device(): what the machine offers and which device the module uses.
#include <pybind11/stl.h>

#include <limits>
#include <mutex>
#include <vector>

#include "bindings.hpp"
#include "input_checks.hpp"
#include "session.hpp"
#include "vkattn/core/context.hpp"
#include "vkattn/core/instance.hpp"

namespace vkattn::python {

void bindDevices(py::module_& m) {
  m.def(
      "devices",
      [] {
        std::vector<DeviceInfo> infos;
        {
          py::gil_scoped_release released;  // creating an instance takes a while; no session state is touched
          infos = Context::listDevices();
        }
        py::list out;
        for (const DeviceInfo& d : infos) {
          py::dict info;
          info["index"] = d.index;
          info["name"] = d.name;
          info["type"] = toString(d.kind);
          info["driver"] = d.driverName + " " + d.driverInfo;
          info["kernel_profile"] = toString(d.defaultProfile());
          info["subgroup_size"] = d.subgroupSize;
          info["shared_memory_bytes"] = d.maxSharedMemoryBytes;
          info["max_storage_buffer_bytes"] = d.maxStorageBufferRange;
          info["max_workgroup_invocations"] = d.maxWorkgroupInvocations;
          info["fp16_storage"] = d.storageBuffer16BitAccess;
          info["fp16_arithmetic"] = d.shaderFloat16;
          info["int8"] = d.shaderInt8;
          info["cooperative_matrix"] = d.cooperativeMatrix;
          info["loop_iteration_limit"] = d.loopIterationLimit;
          out.append(info);
        }
        return out;
      },
      "Every Vulkan device: name, type, limits and features that decide kernel variants.");
  m.def(
      "use_device",
      [](const py::object& device) {
        std::optional<std::string> choice;
        if (py::isinstance<py::str>(device))
          choice = device.cast<std::string>();
        else if (!device.is_none())
          choice = std::to_string(intArgument(device, "index_or_name", 0, std::numeric_limits<uint32_t>::max()));
        // Not onDevice: that would first open the default device just to replace it.
        py::gil_scoped_release released;
        std::lock_guard<std::mutex> lock(sessionMutex());
        useDevice(choice);
        return session().info().name;
      },
      py::arg("index_or_name"), "Switch to a device by index or name substring; returns its name.");
  m.def(
      "current_device", [] { return onDevice([](Context& ctx) { return ctx.info().name; }); },
      "Name of the device in use.");
  m.def(
      "validation_message_count", [] { return Instance::processValidationMessageCount(); },
      "Khronos validation messages seen so far in this process (VKATTN_VALIDATION=1 turns the layer on).");
}

}  // namespace vkattn::python
