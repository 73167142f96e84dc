// The role / sign-off rule (sim/app/governance.hpp) as a table: who asks, what, whom it could
// affect, who signed off -> applied, applied without sign-off (loophole) or rejected.
#include <catch2/catch.hpp>

#include "sim/app/governance.hpp"

using namespace floorsim;
using namespace floorsim::app;
using Status = ChangeOutcome::Status;

namespace {

Person admin{"ops1", "cluster_admin", "platform"};
Person board{"cb1", "change_board", "board"};
Person pricer{"pricer", "quant", "pricing"};
Person price_lead{"pricehead", "quant", "pricing"};
Person risk_lead{"riskhead", "quant", "risk"};
Person risk_quant{"varbatch", "quant", "risk"};
Person stranger{"eve", "intern", "pricing"};

struct Row {
  const char* name;
  Person requester;
  ChangeKind kind;
  std::vector<std::string> affected;  // scope classes
  std::vector<Person> approvals;
  bool user_resv_delete;
  bool user_delete_flag;
  std::vector<std::string> resv_users;
  Status expect;
  const char* reason_has;
};

}  // namespace

TEST_CASE("governance: the role and sign-off rule, table-driven", "[govern][rule]") {
  const std::vector<Row> rows{
      {"admin, affects only pricing, pricing signed", admin, ChangeKind::QosField, {"pricing"}, {price_lead}, false, false, {}, Status::Applied, "signed off by pricing"},
      {"admin, affects pricing and risk, only pricing signed", admin, ChangeKind::QosField, {"pricing", "risk"}, {price_lead}, false, false, {}, Status::Rejected, "team risk"},
      {"admin, affects pricing and risk, both signed", admin, ChangeKind::QosField, {"pricing", "risk"}, {price_lead, risk_lead}, false, false, {}, Status::Applied, ""},
      {"change board, priority weight, nobody signed", board, ChangeKind::PriorityWeight, {"risk"}, {}, false, false, {}, Status::Rejected, "sign-off"},
      {"admin, affects nobody", admin, ChangeKind::ReservationCreate, {}, {}, false, false, {}, Status::Applied, "only the requester"},
      {"quant of pricing edits a QOS", pricer, ChangeKind::QosField, {"pricing"}, {price_lead}, false, false, {}, Status::Rejected, "may only submit"},
      {"quant deletes an association", pricer, ChangeKind::AssociationDelete, {"pricing"}, {price_lead}, false, false, {}, Status::Rejected, "may only submit"},
      {"unknown role", stranger, ChangeKind::QosField, {}, {}, false, false, {}, Status::Rejected, "unknown role"},
      {"loophole deletion affecting only the requester's team", risk_lead, ChangeKind::ReservationDelete, {"risk"}, {risk_lead}, true, false, {"riskhead"}, Status::Applied, "every affected team"},
      {"self-approval of another team does not count", admin, ChangeKind::QosField, {"platform", "risk"}, {Person{"ops1", "quant", "risk"}}, false, false, {}, Status::Rejected, "team risk"},
      {"quant deletes a reservation: loophole off", pricer, ChangeKind::ReservationDelete, {"risk"}, {}, false, false, {"pricer"}, Status::Rejected, "may only submit"},
      {"quant deletes a reservation they use: user_resv_delete", pricer, ChangeKind::ReservationDelete, {"risk"}, {}, true, false, {"pricer"}, Status::AppliedUnapproved, "loophole"},
      {"quant deletes a reservation they use: USER_DELETE flag", pricer, ChangeKind::ReservationDelete, {"risk"}, {}, false, true, {"pricer"}, Status::AppliedUnapproved, "USER_DELETE"},
      {"quant deletes a reservation they cannot use", pricer, ChangeKind::ReservationDelete, {"risk"}, {}, true, false, {"varbatch"}, Status::Rejected, "can use"},
      {"quant deletes a reservation they use, risk signed", pricer, ChangeKind::ReservationDelete, {"risk"}, {risk_quant}, true, false, {"pricer"}, Status::Applied, ""},
      {"loophole covers deletion only", pricer, ChangeKind::ReservationUpdate, {"risk"}, {risk_lead}, true, true, {"pricer"}, Status::Rejected, "may only submit"},
  };
  gov::Settings base;
  for (const auto& row : rows) {
    SECTION(row.name) {
      PolicyChange c;
      c.kind = row.kind;
      c.requester = row.requester;
      c.approvals = row.approvals;
      ChangeScope sc;
      sc.known = true;
      sc.resv_users = row.resv_users;
      sc.resv_user_delete_flag = row.user_delete_flag;
      gov::Settings s = base;
      s.user_resv_delete = row.user_resv_delete;
      const gov::Review r = gov::review(c, sc, row.affected, s);
      CHECK(r.status == row.expect);
      CHECK(r.reason.find(row.reason_has) != std::string::npos);
      // Pure: the same inputs give the same answer.
      const gov::Review again = gov::review(c, sc, row.affected, s);
      CHECK(again.status == r.status);
      CHECK(again.reason == r.reason);
    }
  }
}

TEST_CASE("governance: class ownership maps classes to teams", "[govern][rule]") {
  gov::Settings s;
  s.class_teams = {{"var", "risk"}, {"eod", "risk"}, {"intraday", "pricing"}};
  PolicyChange c;
  c.kind = ChangeKind::QosField;
  c.requester = admin;
  c.approvals = {price_lead};
  ChangeScope sc;
  sc.known = true;
  gov::Review r = gov::review(c, sc, {"eod", "intraday", "var"}, s);
  CHECK(r.status == Status::Rejected);
  CHECK(r.affected_teams == std::vector<std::string>{"pricing", "risk"});
  CHECK(r.missing == std::vector<std::string>{"risk"});
  c.approvals.push_back(risk_quant);
  r = gov::review(c, sc, {"eod", "intraday", "var"}, s);
  CHECK(r.status == Status::Applied);
  // A scope the model cannot tell is never applied.
  sc.known = false;
  CHECK(gov::review(c, sc, {}, s).status == Status::Rejected);
}
