// The C++ half of simt's LLVM pass plugin: what must be written against
// LLVM's C++ API (the pass builder's callbacks, a new-pass-manager pass,
// diagnostics, command-line options). Everything else is in Rust (lib.rs),
// reached through the four extern "C" functions declared below. No C++
// exception or Rust panic crosses between the two: LLVM is built without
// exceptions, and the Rust side catches every panic and returns it as an
// error message.

#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
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

// clang -fpass-plugin: with `-mllvm -simt-nvptx`, NVPTX modules get
// simt-ifconvert,simt-converge once LLVM has simplified them (the optimizer's
// early extension point: -O1-like IR, the shape simt's passes are tested on)
// and simt-strip-markers at the end, as simt-opt's
// `simt-converge,default<O2>,simt-strip-markers`: the markers steer the
// optimizer (they keep the branches around reconvergence points) and are gone
// before code generation, which has no definition for them.
// `-simt-nvptx-passes` replaces the early list (simt's elements only, options
// in <...> as in a pipeline).
cl::opt<bool> NvptxPipeline("simt-nvptx", cl::init(false),
                            cl::desc("simt: run -simt-nvptx-passes on NVPTX modules after "
                                     "simplification, simt-strip-markers at the end"));
cl::opt<std::string> NvptxPasses("simt-nvptx-passes", cl::init("simt-ifconvert,simt-converge"),
                                 cl::desc("simt: the passes -simt-nvptx runs after simplification"));

// Splits a list of pipeline elements at the commas outside <...>.
SmallVector<std::string, 4> splitElements(StringRef Text) {
  SmallVector<std::string, 4> Out;
  int Depth = 0;
  size_t Start = 0;
  for (size_t I = 0; I <= Text.size(); ++I) {
    char C = I < Text.size() ? Text[I] : ',';
    Depth += C == '<' ? 1 : C == '>' ? -1 : 0;
    if (C == ',' && Depth == 0) {
      StringRef E = Text.slice(Start, I).trim();
      if (!E.empty())
        Out.push_back(E.str());
      Start = I + 1;
    }
  }
  return Out;
}

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

// A simt pass that runs on NVPTX modules only: under clang the target is
// known when the pass runs, not when the pipeline is built. Named after the
// switch in -fdebug-pass-manager's log.
struct OnNvptx : PassInfoMixin<OnNvptx> {
  SimtPass Inner;

  explicit OnNvptx(std::string E) : Inner(std::move(E)) {}

  PreservedAnalyses run(Module &M, ModuleAnalysisManager &AM) {
    if (!M.getTargetTriple().isNVPTX())
      return PreservedAnalyses::all();
    return Inner.run(M, AM);
  }

  void printPipeline(raw_ostream &OS, function_ref<StringRef(StringRef)> Map) { Inner.printPipeline(OS, Map); }

  static StringRef name() { return "simt-nvptx"; }
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
  PB.registerOptimizerEarlyEPCallback([](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase) {
    if (!NvptxPipeline)
      return;
    // An element simt does not know fails when it runs, as an LLVM error.
    for (std::string &E : splitElements(NvptxPasses))
      MPM.addPass(OnNvptx(std::move(E)));
  });
  PB.registerOptimizerLastEPCallback([](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase) {
    if (NvptxPipeline)
      MPM.addPass(OnNvptx("simt-strip-markers"));
  });
}

} // namespace

// Remarks of simt's passes go through LLVM's own diagnostics, so opt's
// -pass-remarks{,-missed,-analysis} print them and -pass-remarks-output (with
// -pass-remarks-filter) streams them, exactly as LLVM's passes' remarks.
// Kind: 0 passed, 1 missed, 2 analysis (lib.rs's RemarkKind order).
extern "C" bool simt_plugin_remark_wanted(LLVMModuleRef M, int Kind, const char *Pass) {
  LLVMContext &C = unwrap(M)->getContext();
  if (C.getLLVMRemarkStreamer())
    return true;
  const DiagnosticHandler *H = C.getDiagHandlerPtr();
  switch (Kind) {
  case 0:
    return H->isPassedOptRemarkEnabled(Pass);
  case 1:
    return H->isMissedOptRemarkEnabled(Pass);
  default:
    return H->isAnalysisRemarkEnabled(Pass);
  }
}

extern "C" void simt_plugin_remark_emit(LLVMModuleRef M, int Kind, const char *Pass, const char *Name, const char *Function,
                                        const char *const *Keys, const char *const *Values, size_t N) {
  const llvm::Function *F = unwrap(M)->getFunction(Function);
  if (!F)
    return;
  auto Send = [&](DiagnosticInfoOptimizationBase &R) {
    for (size_t I = 0; I < N; ++I)
      R << DiagnosticInfoOptimizationBase::Argument(Keys[I], StringRef(Values[I]));
    F->getContext().diagnose(R);
  };
  if (Kind == 0) {
    OptimizationRemark R(Pass, Name, F);
    Send(R);
  } else if (Kind == 1) {
    OptimizationRemarkMissed R(Pass, Name, F);
    Send(R);
  } else {
    OptimizationRemarkAnalysis R(Pass, Name, F);
    Send(R);
  }
}

// Called from the Rust side's llvmGetPassPluginInfo (a cdylib exports only
// Rust's own symbols).
extern "C" void simt_plugin_register(PassBuilder *PB) { registerCallbacks(*PB); }

// The struct the Rust side mirrors must have LLVM's layout.
static_assert(sizeof(PassPluginLibraryInfo) == 40, "lib.rs mirrors PassPluginLibraryInfo as 40 bytes");
static_assert(LLVM_PLUGIN_API_VERSION == 2, "lib.rs says API version 2");
