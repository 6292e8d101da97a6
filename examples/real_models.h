// The two larger example models (examples/train_resnet.cpp, examples/train_gpt.cpp and the
// benchmarks): a ResNet-18 for 32x32 images and a GPT-style decoder over bytes, built from
// lazygen's nn layers and composites only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lazygen/aot.h"
#include "lazygen/autograd.h"
#include "lazygen/composite.h"
#include "lazygen/conv.h"
#include "lazygen/cuda.h"
#include "lazygen/device.h"
#include "lazygen/dtype.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/flatten.h"
#include "lazygen/generated/ops/permute.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/select.h"
#include "lazygen/generated/ops/t.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"
#include "lazygen/nn/functional.h"
#include "lazygen/nn/layers.h"
#include "lazygen/operators.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"
#include "lazygen/version.h"

namespace lazygen::examples {

// relu(bn2(conv2(relu(bn1(conv1(x))))) + shortcut(x)), 3x3 convolutions without bias; the
// shortcut is a 1x1 convolution and batch norm where the stride or the width changes.
class BasicBlock : public nn::Module {
 public:
  BasicBlock(int64_t in, int64_t out, int64_t stride)
      : conv1_(std::make_shared<nn::Conv2d>(
            in, out, 3, nn::Conv2dOptions{.stride = stride, .padding = 1, .bias = false})),
        conv2_(std::make_shared<nn::Conv2d>(out, out, 3,
                                            nn::Conv2dOptions{.padding = 1, .bias = false})),
        bn1_(std::make_shared<nn::BatchNorm2d>(out)),
        bn2_(std::make_shared<nn::BatchNorm2d>(out)) {
    register_module("conv1", conv1_);
    register_module("bn1", bn1_);
    register_module("conv2", conv2_);
    register_module("bn2", bn2_);
    if (stride != 1 || in != out) {
      down_conv_ = register_module(
          "downsample.0", std::make_shared<nn::Conv2d>(
                              in, out, 1, nn::Conv2dOptions{.stride = stride, .bias = false}));
      down_bn_ = register_module("downsample.1", std::make_shared<nn::BatchNorm2d>(out));
    }
  }
  Tensor forward(const Tensor& x) const {
    namespace F = nn::functional;
    const Tensor h = bn2_->forward(conv2_->forward(F::relu(bn1_->forward(conv1_->forward(x)))));
    return F::relu(h + (down_conv_ ? down_bn_->forward(down_conv_->forward(x)) : x));
  }

 private:
  std::shared_ptr<nn::Conv2d> conv1_, conv2_, down_conv_;
  std::shared_ptr<nn::BatchNorm2d> bn1_, bn2_, down_bn_;
};

// ResNet-18 for 32x32 inputs (as for CIFAR): a 3x3 stem without max pooling, four stages of two
// basic blocks (64, 128, 256, 512 channels; stride 2 from the second), global average pooling and
// a linear classifier. 11.2 M parameters for 1 input channel and 10 classes.
class ResNet18 : public nn::Module {
 public:
  explicit ResNet18(int64_t in_channels = 1, int64_t classes = 10)
      : stem_(std::make_shared<nn::Conv2d>(in_channels, 64, 3,
                                           nn::Conv2dOptions{.padding = 1, .bias = false})),
        stem_bn_(std::make_shared<nn::BatchNorm2d>(64)),
        fc_(std::make_shared<nn::Linear>(512, classes)) {
    register_module("conv1", stem_);
    register_module("bn1", stem_bn_);
    const int64_t widths[] = {64, 128, 256, 512};
    int64_t in = 64;
    for (int stage = 0; stage < 4; ++stage) {
      for (int b = 0; b < 2; ++b) {
        const int64_t stride = stage > 0 && b == 0 ? 2 : 1;
        blocks_.push_back(
            register_module("layer" + std::to_string(stage + 1) + "." + std::to_string(b),
                            std::make_shared<BasicBlock>(in, widths[stage], stride)));
        in = widths[stage];
      }
    }
    register_module("fc", fc_);
  }
  // [batch, in_channels, 32, 32] -> class scores [batch, classes].
  Tensor forward(const Tensor& x) const {
    namespace F = nn::functional;
    Tensor h = F::relu(stem_bn_->forward(stem_->forward(x)));
    for (const auto& block : blocks_) h = block->forward(h);
    return fc_->forward(F::flatten(_adaptive_avg_pool2d(h, {1, 1}), 1));
  }

 private:
  std::shared_ptr<nn::Conv2d> stem_;
  std::shared_ptr<nn::BatchNorm2d> stem_bn_;
  std::vector<std::shared_ptr<BasicBlock>> blocks_;
  std::shared_ptr<nn::Linear> fc_;
};

struct GptConfig {
  int64_t vocab = 256, context = 128, width = 128, heads = 4, layers = 4;
};

// Causal multi-head self-attention of [batch, tokens, width]: one linear for queries, keys and
// values, scaled dot-product attention per head with a causal mask, an output projection.
class CausalSelfAttention : public nn::Module {
 public:
  explicit CausalSelfAttention(const GptConfig& c)
      : heads_(c.heads),
        qkv_(std::make_shared<nn::Linear>(c.width, 3 * c.width)),
        proj_(std::make_shared<nn::Linear>(c.width, c.width)) {
    register_module("qkv", qkv_);
    register_module("proj", proj_);
  }
  Tensor forward(const Tensor& x) const {
    const int64_t b = x.size(0), t = x.size(1), w = x.size(2);
    // [b, t, 3 * w] -> [3, b, heads, t, w / heads]
    const Tensor qkv =
        permute(reshape(qkv_->forward(x), {b, t, 3, heads_, w / heads_}), {2, 0, 3, 1, 4});
    const Tensor y = scaled_dot_product_attention(
        select(qkv, 0, 0), select(qkv, 0, 1), select(qkv, 0, 2), std::nullopt, /*is_causal=*/true);
    return proj_->forward(reshape(permute(y, {0, 2, 1, 3}), {b, t, w}));
  }

 private:
  int64_t heads_;
  std::shared_ptr<nn::Linear> qkv_, proj_;
};

// A pre-norm transformer block: x + attention(ln1(x)), then + mlp(ln2(x)) with a 4x gelu MLP.
class DecoderBlock : public nn::Module {
 public:
  explicit DecoderBlock(const GptConfig& c)
      : ln1_(std::make_shared<nn::LayerNorm>(c.width)),
        ln2_(std::make_shared<nn::LayerNorm>(c.width)),
        attn_(std::make_shared<CausalSelfAttention>(c)),
        fc1_(std::make_shared<nn::Linear>(c.width, 4 * c.width)),
        fc2_(std::make_shared<nn::Linear>(4 * c.width, c.width)) {
    register_module("ln1", ln1_);
    register_module("attn", attn_);
    register_module("ln2", ln2_);
    register_module("fc1", fc1_);
    register_module("fc2", fc2_);
  }
  Tensor forward(const Tensor& x) const {
    const Tensor h = x + attn_->forward(ln1_->forward(x));
    return h + fc2_->forward(gelu(fc1_->forward(ln2_->forward(h))));
  }

 private:
  std::shared_ptr<nn::LayerNorm> ln1_, ln2_;
  std::shared_ptr<CausalSelfAttention> attn_;
  std::shared_ptr<nn::Linear> fc1_, fc2_;
};

// A GPT-style decoder: token and position embeddings (N(0, 0.02)), `layers` pre-norm blocks, a
// final layer norm and the output projection tied to the token embedding.
class Gpt : public nn::Module {
 public:
  explicit Gpt(const GptConfig& c = {})
      : config_(c),
        tokens_(std::make_shared<nn::Embedding>(c.vocab, c.width, nullptr, 0.02)),
        positions_(std::make_shared<nn::Embedding>(c.context, c.width, nullptr, 0.02)),
        ln_f_(std::make_shared<nn::LayerNorm>(c.width)) {
    register_module("tok", tokens_);
    register_module("pos", positions_);
    for (int64_t i = 0; i < c.layers; ++i) {
      blocks_.push_back(
          register_module("h." + std::to_string(i), std::make_shared<DecoderBlock>(c)));
    }
    register_module("ln_f", ln_f_);
  }
  // int64 tokens [batch, t] (t <= context) -> logits [batch, t, vocab].
  Tensor forward(const Tensor& tokens) const {
    const Tensor where = arange(tokens.size(1), DType::Int64, tokens.device());
    Tensor h = tokens_->forward(tokens) + positions_->forward(where);
    for (const auto& block : blocks_) h = block->forward(h);
    return nn::functional::linear(ln_f_->forward(h), tokens_->weight());
  }
  // The mean next-token cross-entropy of `tokens` predicting `targets` (both [batch, t]).
  Tensor loss(const Tensor& tokens, const Tensor& targets) const {
    const Tensor logits = forward(tokens);
    return nn::functional::cross_entropy(reshape(logits, {-1, config_.vocab}),
                                         reshape(targets, {-1}));
  }

 private:
  GptConfig config_;
  std::shared_ptr<nn::Embedding> tokens_, positions_;
  std::vector<std::shared_ptr<DecoderBlock>> blocks_;
  std::shared_ptr<nn::LayerNorm> ln_f_;
};

}  // namespace lazygen::examples
