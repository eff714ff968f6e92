// The C++ half of simt's LLVM pass plugin: what must be written against
// LLVM's C++ API (the pass builder's callbacks, a new-pass-manager pass,
// diagnostics, command-line options). Everything else is in Rust (lib.rs),
// reached through the four extern "C" functions declared below. No C++
// exception or Rust panic crosses between the two: LLVM is built without
// exceptions, and the Rust side catches every panic and returns it as an
// error message.

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm-c/Core.h"

#include <string>

using namespace llvm;

extern "C" {
// Whether `text` (`simt-NAME<options>` or `print<simt-NAME>`) names one of
// simt's passes; bad options still count (running it reports them).
bool simt_plugin_knows(const char *text, size_t len);
// Runs the pass `text` names on `module`: 0 unchanged, 1 changed, 2 failed
// with `*message` set (free it with simt_plugin_free_message).
int simt_plugin_run(LLVMModuleRef module, const char *text, size_t len, char **message);
void simt_plugin_free_message(char *message);
}

namespace {

// clang -fpass-plugin: adds simt-ifconvert,simt-converge at the end of the
// optimisation pipeline of NVPTX modules when switched on with
// `-mllvm -simt-nvptx`.
cl::opt<bool> NvptxPipeline("simt-nvptx", cl::init(false),
                            cl::desc("Run simt-ifconvert,simt-converge at the end of the "
                                     "optimisation pipeline of NVPTX modules"));

// One pipeline element of simt's, run through simt's registry.
struct SimtPass : PassInfoMixin<SimtPass> {
  std::string Element;

  explicit SimtPass(std::string E) : Element(std::move(E)) {}

  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    char *Message = nullptr;
    int R = simt_plugin_run(wrap(&M), Element.data(), Element.size(), &Message);
    if (R == 2) {
      M.getContext().emitError(Twine(Message ? Message : "simt: unknown failure"));
      simt_plugin_free_message(Message);
      return PreservedAnalyses::none();
    }
    return R == 1 ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }

  void printPipeline(raw_ostream &OS, function_ref<StringRef(StringRef)>) { OS << Element; }

  // Run at -O0 and under optnone too: a pipeline that names it asked for it.
  static bool isRequired() { return true; }
};

void registerCallbacks(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (!simt_plugin_knows(Name.data(), Name.size()))
          return false;
        MPM.addPass(SimtPass(Name.str()));
        return true;
      });
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase) {
        if (!NvptxPipeline)
          return;
        // The triple is known only when the pass runs, so each pass checks.
        struct OnNvptx : PassInfoMixin<OnNvptx> {
          SimtPass Inner;
          explicit OnNvptx(std::string E) : Inner(std::move(E)) {}
          PreservedAnalyses run(Module &M, ModuleAnalysisManager &AM) {
            if (!M.getTargetTriple().isNVPTX())
              return PreservedAnalyses::all();
            return Inner.run(M, AM);
          }
          static bool isRequired() { return true; }
        };
        MPM.addPass(OnNvptx("simt-ifconvert"));
        MPM.addPass(OnNvptx("simt-converge"));
      });
}

} // namespace

// Called from the Rust side's llvmGetPassPluginInfo (a cdylib exports only
// Rust's own symbols).
extern "C" void simt_plugin_register(PassBuilder *PB) { registerCallbacks(*PB); }

// The struct the Rust side mirrors must have LLVM's layout.
static_assert(sizeof(PassPluginLibraryInfo) == 40, "lib.rs mirrors PassPluginLibraryInfo as 40 bytes");
static_assert(LLVM_PLUGIN_API_VERSION == 2, "lib.rs says API version 2");
