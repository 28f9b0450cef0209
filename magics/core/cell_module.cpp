#include "cell_module.hpp"

#include <algorithm>

#include <pybind11/eval.h>
#include <pybind11/stl.h>

namespace gillab
{
    using namespace pybind11::literals;

    cell_module::cell_module(const std::string& magic, const std::string& source,
                             const std::vector<std::string>& entry_points)
    {
        py::dict scope("source"_a = source, "entry_points"_a = entry_points, "magic"_a = magic);
        py::exec(R"PY(
import ast, importlib, os, re, sys, tempfile, uuid
try:
    tree = ast.parse(source)
except SyntaxError as error:
    from IPython.core.error import UsageError
    raise UsageError(f"%{magic}: the cell is not valid Python: {error.msg} (line {error.lineno})") from None
except ValueError as error:  # a NUL byte in the cell
    from IPython.core.error import UsageError
    raise UsageError(f"%{magic}: the cell is not valid Python: {error}") from None
def bound_names(statement):
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [statement.name]
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return [alias.asname or alias.name.split(".")[0] for alias in statement.names]
    targets = statement.targets if isinstance(statement, ast.Assign) else \
        [statement.target] if isinstance(statement, (ast.AnnAssign, ast.AugAssign)) else []
    return [node.id for target in targets for node in ast.walk(target) if isinstance(node, ast.Name)]
defined = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
top_level_names = sorted({name for statement in tree.body for name in bound_names(statement)})
if not defined & set(entry_points):
    arguments = ast.arguments(posonlyargs=[], args=[ast.arg(arg="i")], kwonlyargs=[], kw_defaults=[], defaults=[])
    job = ast.FunctionDef(name=entry_points[0], args=arguments, body=tree.body or [ast.Pass()], decorator_list=[])
    tree = ast.fix_missing_locations(ast.Module(body=[job], type_ignores=[]))
# A kernel that died in the middle of a magic (a crash, kill -9) left its
# folder behind: the folder names its kernel, so a later kernel removes it.
for stale in os.listdir(tempfile.gettempdir()):
    owner = re.fullmatch(r"gillab-(\d+)-\w+", stale)
    if not owner or int(owner.group(1)) == os.getpid():
        continue
    path = os.path.join(tempfile.gettempdir(), stale)
    try:
        if os.stat(path).st_uid == os.getuid():
            os.kill(int(owner.group(1)), 0)
    except ProcessLookupError:
        import shutil; shutil.rmtree(path, ignore_errors=True)
    except OSError:  # gone since listed (a live kernel's magic ended), or not ours to signal
        pass
# A job's traceback is shown after its module is gone, and showing it leaves
# lazy linecache entries for that file: drop those of earlier calls here.
import linecache
for stale in [path for path in linecache.cache if os.path.basename(path).startswith("gillab_cell_")]:
    if not os.path.exists(stale):
        del linecache.cache[stale]
folder = tempfile.mkdtemp(prefix=f"gillab-{os.getpid()}-")  # mkdtemp makes it 0700
name = "gillab_cell_" + uuid.uuid4().hex[:12]
with open(os.path.join(folder, name + ".py"), "w") as out:
    out.write(ast.unparse(tree) + "\n")
if not defined & set(entry_points):
    top_level_names = [entry_points[0]]
)PY", scope);
        m_name = scope["name"].cast<std::string>();
        m_folder = scope["folder"].cast<std::string>();
        m_top_level_names = scope["top_level_names"].cast<std::vector<std::string>>();
    }

    py::object cell_module::module() const
    {
        if (m_module) return m_module;
        py::dict scope("name"_a = m_name, "folder"_a = m_folder);
        py::exec(R"PY(
import importlib, sys
sys.path.append(folder)
try:
    module = importlib.import_module(name)
except BaseException:
    sys.path.remove(folder)
    sys.modules.pop(name, None)
    raise
)PY", scope);
        m_module = scope["module"];
        return m_module;
    }

    cell_module::~cell_module()
    {
        try
        {
            py::dict scope("name"_a = m_name, "folder"_a = m_folder);
            py::exec(R"PY(
import shutil, sys
if folder in sys.path:
    sys.path.remove(folder)
sys.modules.pop(name, None)
sys.path_importer_cache.pop(folder, None)  # else one finder per magic call
shutil.rmtree(folder, ignore_errors=True)
)PY", scope);
        }
        catch (py::error_already_set&)
        {
            // Never let clean-up hide the magic's own result or error.
        }
    }

    bool cell_module::defines(const std::string& name) const
    {
        if (m_module) return py::hasattr(m_module, name.c_str());
        return std::find(m_top_level_names.begin(), m_top_level_names.end(), name) != m_top_level_names.end();
    }
}
