// Tests for the template engine (writer/template.h): inline placeholders, list placeholders
// alone on a line (one indented block per element, none for an empty list), and the errors that
// keep templates and emitters in step: an unset placeholder names the template and its line, a
// value the template never uses names the template.
#include "writer/template.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace lazygen::gen {
namespace {

using Lines = std::vector<std::string>;

std::string render(const std::string& text, const TemplateEnv& env) {
  return CodeTemplate(text, "t.tmpl").substitute(env);
}

GenError render_error(const std::string& text, const TemplateEnv& env) {
  try {
    render(text, env);
  } catch (const GenError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a GenError";
  return GenError({}, "");
}

TEST(Template, ReplacesInlinePlaceholders) {
  EXPECT_EQ(
      render("Tensor ${name}(${params});\n", {{"name", "add"}, {"params", "const Tensor& self"}}),
      "Tensor add(const Tensor& self);\n");
}

TEST(Template, AddsTheFinalNewline) {
  EXPECT_EQ(render("x = ${v};", {{"v", "1"}}), "x = 1;\n");
}

TEST(Template, InlineListIsJoinedWithCommas) {
  EXPECT_EQ(render("f(${args});\n", {{"args", Lines{"a", "b", "c"}}}), "f(a, b, c);\n");
  EXPECT_EQ(render("f(${args});\n", {{"args", Lines{}}}), "f();\n");
}

TEST(Template, PlaceholderAloneOnALineExpandsOneLinePerElementIndented) {
  EXPECT_EQ(render("{\n  ${body}\n}\n", {{"body", Lines{"a();", "b();"}}}),
            "{\n  a();\n  b();\n}\n");
}

TEST(Template, EmptyListRemovesTheLine) {
  EXPECT_EQ(render("{\n  ${body}\n}\n", {{"body", Lines{}}}), "{\n}\n");
}

TEST(Template, MultiLineElementsAreIndentedLineByLine) {
  EXPECT_EQ(
      render("ns {\n    ${items}\n}\n", {{"items", Lines{"struct A {\n  int x;\n};\n", "int y;"}}}),
      "ns {\n    struct A {\n      int x;\n    };\n    int y;\n}\n");
}

TEST(Template, BlankLinesInsideElementsGetNoTrailingIndent) {
  EXPECT_EQ(render("  ${items}\n", {{"items", Lines{"a\n\nb"}}}), "  a\n\n  b\n");
}

TEST(Template, StringAloneOnALineIsIndentedToo) {
  EXPECT_EQ(render("  ${text}\n", {{"text", "a\nb\n"}}), "  a\n  b\n");
}

TEST(Template, UnknownPlaceholderNamesTemplateAndLine) {
  GenError e = render_error("line one\nf(${missing});\n", {});
  EXPECT_EQ(e.loc().str(), "t.tmpl:2");
  EXPECT_EQ(e.message(), "template uses '${missing}', which the emitter does not set");
}

TEST(Template, UnusedValueNamesTheTemplate) {
  GenError e = render_error("f(${a});\n", {{"a", "x"}, {"extra", "y"}});
  EXPECT_EQ(e.loc().str(), "t.tmpl");
  EXPECT_EQ(e.message(), "the emitter sets 'extra', which the template never uses");
}

TEST(Template, UnclosedPlaceholderPointsAtIt) {
  GenError e = render_error("a\nb ${oops\n", {});
  EXPECT_EQ(e.loc().str(), "t.tmpl:2:3");
  EXPECT_EQ(e.message(), "unclosed '${'");
}

TEST(Template, TemplateDirReadsFilesOnce) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("lazygen_template_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "x.tmpl") << "v=${v}\n";
  TemplateDir templates(dir.string());
  EXPECT_EQ(templates.render("x.tmpl", {{"v", "1"}}), "v=1\n");
  std::ofstream(dir / "x.tmpl") << "changed ${v}\n";
  EXPECT_EQ(templates.render("x.tmpl", {{"v", "2"}}), "v=2\n");  // cached
  std::filesystem::remove_all(dir);
}

TEST(Template, MissingTemplateFileSaysWhereTemplatesComeFrom) {
  TemplateDir templates("/nonexistent");
  try {
    templates.get("x.tmpl");
    FAIL() << "expected a GenError";
  } catch (const GenError& e) {
    EXPECT_EQ(e.loc().str(), "/nonexistent/x.tmpl");
    EXPECT_EQ(e.message(), "cannot read template");
    EXPECT_EQ(e.hint(), "pass --templates <dir> pointing at lazygen's templates/");
  }
}

}  // namespace
}  // namespace lazygen::gen
