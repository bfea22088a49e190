#include "train_methods.h"

#include <fmt/format.h>

#include "errors.h"
#include "output.h"
#include "train_models.h"
#include "train_objective.h"
#include "train_sgd.h"
#include "train_wang.h"

namespace ldp::tools {
namespace {

// --method nonprivate: the optimum the private methods are measured against, as a method of its
// own (no reports, no privacy).
train_result solve_nonprivate(const train_data& data, const train_settings& s) {
  train_result out;
  out.w = nonprivate_minimum(s.loss, data.objective, s.seed);
  out.summary = "no privacy: server::minimize_on_box on the training rows themselves";
  out.details = nlohmann::ordered_json::object();
  return out;
}

}  // namespace

const std::vector<train_method>& train_methods() {
  // A row takes --loss when it has a solver, --model when it has a trainer (docs/cli.md "ldp train").
  static const std::vector<train_method> methods = {
      {"nonprivate", "the non-private optimum (no reports)", "", "", solve_nonprivate, "--l2", "",
       train_model_nonprivate},
      {"ldp-sgd", "interactive LDP SGD, the gradients through a vector-mean mechanism (privunitg)",
       "--epsilon --steps --sgd-mechanism", "--epsilon", solve_ldp_sgd,
       "--epsilon --steps --sgd-mechanism --lr --clip --l2", "--epsilon", train_model_ldp_sgd},
      {"dp-sgd", "user-level DP-SGD, full batch, the discrete Gaussian on the devices' contributions (I.1)", "", "",
       nullptr, "--epsilon --delta --steps --lr --clip --l2", "--epsilon", train_model_dp_sgd},
      {"levy-sgd", "Levy et al. Alg 3: the gradient as WinsorizedMeanHighD of the users' averages (I.2)", "", "",
       nullptr, "--epsilon --delta --steps --lr --clip --l2", "--epsilon", train_model_levy_sgd},
      {"levy-phased", "Levy et al. Alg 4: phased ERM over disjoint user groups (I.2)", "", "", nullptr,
       "--epsilon --delta --steps --lr --clip --l2 --phases", "--epsilon", train_model_levy_phased},
      {"ghazi-output", "Ghazi et al. Alg 6: regularized output perturbation (I.3.2)", "", "", nullptr,
       "--epsilon --delta --clip --l2", "--epsilon", train_model_ghazi_output},
      // ghazi-sgd (Ghazi et al. Algs 3-5, I.3.4-I.3.6): the lead adds its row here.
      {"wang-bernstein", "Wang et al. Alg 2: every grid loss through the bernstein mechanism, the Bernstein surrogate",
       "--epsilon --grid --order", "--epsilon", solve_wang_bernstein, "", "", nullptr},
      {"wang-1bit", "Wang et al. Alg 3: one bit per user on its public group's grid loss, the Bernstein surrogate",
       "--epsilon --grid --order", "--epsilon", solve_wang_1bit, "", "", nullptr},
      {"wang-genprot", "Wang et al. Alg 8: one of T public samples per user, the Bernstein surrogate",
       "--epsilon --grid --order --strings", "--epsilon", solve_wang_genprot, "", "", nullptr},
      {"wang-glm", "Wang et al. Algs 4/5: d (d + 1) + 1 Gaussian copies of (x, s) per user, SIGM on unbiased products",
       "--epsilon --delta --degree --steps", "--epsilon --delta", solve_wang_glm, "", "", nullptr},
  };
  return methods;
}

const train_method& find_train_method(const std::string& name) {
  std::string known;
  for (const train_method& m : train_methods()) {
    if (name == m.name) return m;
    known += (known.empty() ? "" : ", ") + std::string(m.name);
  }
  fail("unknown --method '{}' (known: {})", escaped(name, 40), known);
}

}  // namespace ldp::tools
