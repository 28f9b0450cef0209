#include "framework/py_result.hpp"

#include <pybind11/stl.h>
#include <pybind11_json/pybind11_json.hpp>

#include <optional>

#include "render/render.hpp"
#include "render/chart_png.hpp"

namespace gillab
{
    using namespace pybind11::literals;

    namespace
    {
        py::object records(const Result& result)
        {
            return py::cast(render_json(result)["rows"]);
        }

        py::object data_attribute(const Result& result, const std::string& name)
        {
            if (result.data.is_object() && result.data.contains(name))
            {
                return py::cast(result.data[name]);
            }
            throw py::attribute_error("'" + result.magic + "' result has no field '" + name +
                                      "'; its fields: " + py::str(py::cast(result.data).attr("keys")()).cast<std::string>());
        }

        py::object to_dataframe(const Result& result)
        {
            py::module_ pandas;
            try
            {
                pandas = py::module_::import("pandas");
            }
            catch (py::error_already_set&)
            {
                throw std::runtime_error("to_dataframe() needs pandas, which is not importable here; use rows or to_dict()");
            }
            return pandas.attr("DataFrame")(records(result));
        }

        bool wanted(const std::string& mime, const py::object& include, const py::object& exclude)
        {
            return (include.is_none() || include.contains(mime)) && (exclude.is_none() || !exclude.contains(mime));
        }

        // IPython's (data, metadata) form: the PNG's metadata gives its display size.
        py::tuple repr_mimebundle(const Result& result, py::object include, py::object exclude)
        {
            std::optional<ChartImage> image;
            if (result.chart && wanted("image/png", include, exclude)) image = chart_to_png(*result.chart);  // nullopt without matplotlib
            const MimeBundle bundle = mime_bundle(result, image ? &*image : nullptr);
            py::dict data;
            for (const auto& item : bundle.data.items())
            {
                if (wanted(item.key(), include, exclude)) data[py::str(item.key())] = py::cast(item.value());
            }
            return py::make_tuple(data, py::cast(bundle.metadata));
        }
    }

    void bind_result(py::module_& m)
    {
        py::class_<Result>(m, "Result", "A gillab measurement: a table for people, fields for code.")
            .def_property_readonly("magic", [](const Result& r) { return r.magic; })
            .def_property_readonly("title", [](const Result& r) { return r.table.title; })
            .def_property_readonly("rows", &records, "the table as a list of dicts, one per row")
            .def_property_readonly("notes", [](const Result& r) { return r.table.notes; })
            .def(
                "to_dict", [](const Result& r) { return py::cast(render_json(r)); },
                "everything in the result as plain Python data (the application/vnd.gillab.result+json output)")
            .def("to_dataframe", &to_dataframe, "the table as a pandas DataFrame")
            .def("_repr_mimebundle_", &repr_mimebundle, "include"_a = py::none(), "exclude"_a = py::none())
            .def("__repr__", [](const Result& r) { return render_text(r); })
            .def("__getattr__", &data_attribute)
            .def("__dir__", [](const Result& r) {
                std::vector<std::string> names = {"magic", "title", "rows", "notes", "to_dict", "to_dataframe"};
                for (auto& item : r.data.items()) names.push_back(item.key());
                return names;
            });
    }

    py::object wrap_result(Result result)
    {
        return py::cast(std::move(result));
    }

    std::size_t interpreter_index(const nl::json& interpreters, const py::object& python)
    {
        if (python.is_none()) return 0;
        const std::string wanted = py::str(python).cast<std::string>();
        std::string known;
        for (std::size_t i = 0; i < interpreters.size(); ++i)
        {
            if (interpreters[i]["requested"] == wanted || interpreters[i]["python"] == wanted) return i;
            known += (known.empty() ? "" : ", ") + interpreters[i]["requested"].get<std::string>();
        }
        throw py::key_error("no interpreter '" + wanted + "' in this result; measured: " + known);
    }
}
