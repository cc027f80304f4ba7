"""Constructor arguments for every class of the checker fixtures (tests/fixtures/check).

``SPECS[case]["module:Class"]`` is ``(args, kwargs)`` or ``Skip(reason)``. A class that is not
listed is constructed with no arguments. ``TextFile(content)`` anywhere in ``args``/``kwargs`` is
replaced by the path of a temporary file holding ``content``, ``Named``/``Made`` by an object
of the case's own (imported when the class is constructed). A case that is not listed has only
classes that take no arguments.

This module is imported by ``_driver.py`` in a subprocess (it imports torch); the pytest process
never imports it.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, NamedTuple

import torch


class Skip(NamedTuple):
    reason: str


class TextFile(NamedTuple):
    content: str


class Named(NamedTuple):
    """The object ``module:name`` of the case itself (a class handed over as a value)."""

    target: str


class Made(NamedTuple):
    """``module:Class`` of the case called with ``args`` (a spec object of its own classes)."""

    target: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = {}  # noqa: RUF012 - never mutated


Spec = tuple[tuple[Any, ...], dict[str, Any]] | Skip

# head_size, rotary_dim, max_position_embeddings, base, is_neox_style: small on purpose.
_ROPE = (16, 8, 64, 10000.0, True)
_ROPE_SPECS: dict[str, Spec] = {
    "rope.base:RotaryEmbeddingBase": ((*_ROPE, torch.float32), {}),
    "rope.yarn:DeepseekScalingRotaryEmbedding": ((*_ROPE, 2.0, torch.float32), {}),
    "rope.deepseek_v4:DeepseekV4ScalingRotaryEmbedding": (
        (*_ROPE, 2.0, torch.bfloat16),
        {"beta_fast": 32, "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 0.0},
    ),
}

# q_lora_rank None: the ancestor builds q_proj, LowRankAttention does not; use_bias True.
_ATTENTION = SimpleNamespace(q_lora_rank=None, hidden=8, heads=2, use_bias=True)

_RECORDS = TextFile('[{"keep": true}, {"keep": false}, {"keep": true}]')

# spec_fields: the parts pkg/recipes.py's full_mixer() and head() give
_FULL_PARTS = Made(
    "pkg.layers:MixerParts",
    tuple(Named(f"pkg.layers:{n}") for n in ("Projection", "Projection", "Passthrough")),
)
_HEAD_RECIPE = Made("pkg.recipe:Recipe", (), {"cls": Named("pkg.layers:Projection")})

# Cases whose classes are also traced object by object (``trace_model``): their findings are
# about a part of a submodule (``self.mixer.inp = ...``), repeated on the submodule.
PART_CASES = frozenset(
    {
        "nested_part_rebuilt",
        "reinit_live_object",
        "class_default_param",
        "builder_spec",
        "module_init_by_metaclass",
        "part_deleted",
    }
)

SPECS: dict[str, dict[str, Spec]] = {
    "redo_under_param_condition": {"pkg.prec:PrecChild": ((), {"fp32": True})},
    "clean_external_base": {
        "pkg.child:Child": Skip(
            "the base is transformers.PreTrainedModel: an external class (not installed here) "
            "that needs a model config; the fixture checks that external bases are not analyzed"
        ),
    },
    "deepseek_v4_bug": _ROPE_SPECS,
    "deepseek_v4_fixed": _ROPE_SPECS,
    "io_dataset_reload": {
        "data.base:JsonDataset": ((_RECORDS,), {}),
        "data.filtered:FilteredDataset": ((_RECORDS,), {"keep": lambda r: r["keep"]}),
    },
    "keyword_only": {
        "pkg.base:Base": ((4,), {}),
        "pkg.child:Redo": ((4,), {}),
        "pkg.child:Off": ((4,), {}),
    },
    "mixin": {
        "pkg.mixin:CacheMixin": Skip("mixin only: it needs an nn.Module after it in the MRO"),
    },
    "project_class_construction": {
        "pkg.tok:Vocab": ((TextFile("alpha beta gamma"),), {}),
        "pkg.model:Base": ((TextFile("alpha beta gamma"),), {}),
        "pkg.model:Child": ((TextFile("alpha beta gamma"),), {}),
    },
    "submodule_rebuilt": {
        "pkg.base:Encoder": ((4,), {}),
        "pkg.child:Wider": ((4,), {}),
    },
    "call_args_by_value": {
        "pkg.tables:CasedTable": ((["Ab", "cd"],), {}),
        "pkg.tables:SkippingTable": ((["ab", "cd"],), {}),
    },
    "call_into_other_attribute": {
        "pkg.heads:Detector": ((4,), {}),
        "pkg.heads:DistilledDetector": ((4,), {}),
        "pkg.heads:RebuiltDetector": ((4,), {}),
    },
    "clean_derived_value": {
        "pkg.rotary:Rotary": ((8,), {}),
        "pkg.rotary:ScaledRotary": ((8,), {}),
    },
    "clean_memoised_factory": {
        "pkg.rope:Rotary": ((8,), {}),
        "pkg.rope:Attention": ((8,), {}),
        "pkg.rope:ScaledAttention": ((8,), {}),
    },
    "clean_memoised_via_lookup": {
        "pkg.pos:Positions": ((4, 8), {}),
        "pkg.pos:Encoder": ((4,), {}),
        "pkg.pos:TextEncoder": ((4,), {}),
    },
    "config_copy_field_off": {
        "pkg.moe:MoE": ((SimpleNamespace(hidden=4, n_shared_experts=2),), {}),
        "pkg.moe:DenseSharedMoE": ((SimpleNamespace(hidden=4, n_shared_experts=2),), {}),
        "pkg.moe:SharedMoE": ((SimpleNamespace(hidden=4, n_shared_experts=2),), {}),
    },
    # ancestor_path_raises: build=True wherever the ancestor's grid can be built; with it,
    # LateWeightGrid raises in the ancestor (tests/runtime/test_raise_paths.py shows it).
    "ancestor_path_raises": {
        "pkg.grid:Grid": ((4,), {}),
        "pkg.grid:LateWeightGrid": ((4,), {"build": False}),
        "pkg.grid:AlwaysBuildGrid": Skip(
            "every construction raises AttributeError in the ancestor (the shape modelled): "
            "tests/runtime/test_raise_paths.py constructs it"
        ),
        **{
            f"pkg.grid:{name}": ((4,), {"build": True})
            for name in (
                "EarlyWeightGrid",
                "ClassDefaultGrid",
                "PropertyGrid",
                "DefaultedReadGrid",
                "CaughtReadGrid",
                "FallbackGrid",
                "ShortCircuitGrid",
                "StaticHelperGrid",
            )
        },
    },
    "cost_literal_shape": {
        f"pkg.spans:{name}": ((8, 64, [3, 4]), {}) for name in ("Spans", "ThreeWaySpans")
    },
    "alternatives_discarded": {
        **{
            name: ((8,), {})
            for name in (
                "pkg.trunk:Trunk",
                "pkg.wide:WiderTrunk",
                "pkg.wide:RefetchedTrunk",
                "pkg.mirrored:MirroredTrunk",
            )
        },
        "pkg.wide:RegroupedTrunk": ((8, SimpleNamespace(is_last=True)), {}),
    },
    "config_copy_setattr": {
        **{
            f"pkg.router:{name}": ((SimpleNamespace(width=4, experts=2, side_branch=2),), {})
            for name in ("Router", "FrozenCopyRouter", "SetattrCopyRouter", "PassThroughRouter")
        },
        "pkg.router:MaybeOffRouter": (
            (SimpleNamespace(width=4, experts=2, side_branch=2),),
            {"dense": False},
        ),
        "pkg.router:DynamicNameRouter": (
            (SimpleNamespace(width=4, experts=2, side_branch=2),),
            {"field": "unused"},
        ),
    },
    "cost_heavy_builders": {
        "pkg.model:Layer": Skip("its module imports transformers (not installed here)"),
        "pkg.model:Stack": Skip("needs transformers.AutoModel and a checkpoint"),
        "pkg.model:DeeperStack": Skip("needs transformers.AutoModel and a checkpoint"),
    },
    "cost_light_repeats": {
        "pkg.heads:TopKSampler": ((4,), {}),
        "pkg.heads:Head": ((4,), {}),
        "pkg.heads:TunedHead": ((4,), {}),
    },
    # delete_shows_branch: SplitLatentAttention can only run with a rank (it deletes the
    # fused projection); without one, RebuiltLatentAttention's rebuild is real.
    "delete_shows_branch": {
        "pkg.attn:LatentAttention": ((SimpleNamespace(rank=2, hidden=4, latent=3),), {}),
        "pkg.attn:SplitLatentAttention": (
            (SimpleNamespace(rank=2, hidden=4, latent=3), {"split": True}),
            {},
        ),
        "pkg.attn:RebuiltLatentAttention": (
            (SimpleNamespace(rank=None, hidden=4, latent=3), {"split": True}),
            {},
        ),
    },
    "exclusive_guards": {
        f"pkg.attention:{name}": ((_ATTENTION,), {})
        for name in ("LatentAttention", "LowRankAttention", "AlwaysRebuilt")
    },
    # A fix fixture with no checker twin: Base's `config` is required (the rest have defaults).
    "formatted_like_surroundings": {"pkg.m:Base": ((None,), {})},
    "generated_code": {
        "pkg.models.tiny.modeling_tiny:TinyBlock": ((4,), {}),
        "pkg.models.tiny.modeling_tiny:TinyWideBlock": ((4,), {}),
        "pkg.models.tiny.modular_notes:NotesBlock": ((4,), {}),
        "pkg.models.tiny.modular_tiny:TinyWideBlock": Skip(
            "a template of generated code: never run, and not reported unless check-templates"
        ),
    },
    "cost_reads_arguments": {
        f"pkg.layers:{name}": ((8,), {})
        for name in ("PlainNorm", "Head", "TunedHead", "Projection", "NoBiasProjection")
    },
    # memoised_changed_args: a dict per class (StretchedEncoder changes its own in place).
    "memoised_changed_args": {
        "pkg.pos:Positions": ((8, {"factor": 1.0}), {}),
        **{
            f"pkg.pos:{name}": ((8, {"factor": 1.0}), {})
            for name in (
                "Encoder",
                "SameEncoder",
                "StretchedEncoder",
                "CopiedEncoder",
                "RestatedEncoder",
            )
        },
        "pkg.pos:MaybeStretchedEncoder": ((8, {"factor": 1.0}), {"stretch": True}),
        "pkg.pos:WiderEncoder": ((8, {"factor": 1.0}), {}),
    },
    # memoised_wrapper: each class its own scaling dict; SectionedLayer's holds sections (it
    # changes it and asks again), PlainPickedLayer's base uses the other cache (fast).
    "memoised_wrapper": {
        "pkg.tables:Table": ((8, 10000.0), {}),
        **{
            f"pkg.tables:{name}": ((8, {"stretch": 1.0}), {})
            for name in ("Layer", "SameLayer", "AgainLayer", "RebasedLayer", "PickedLayer")
        },
        "pkg.tables:SectionedLayer": ((8, {"sections": 2}), {}),
        "pkg.tables:PlainPickedLayer": ((8, {"stretch": 1.0}), {"fast": True}),
    },
    # memoised_conditional_args: FourierAttention's scaling holds Fourier terms (it marks it
    # and asks again), ChunkedAttention is given a chunking (it leaves it out when asking).
    "memoised_conditional_args": {
        "pkg.attention:Rotary": ((8, 10000.0), {}),
        **{
            f"pkg.attention:{name}": ((8,), {"scaling": {"factor": 1.0}})
            for name in ("Attention", "PlainAttention", "FlatAttention")
        },
        "pkg.attention:FourierAttention": ((8,), {"scaling": {"terms": 4}}),
        "pkg.attention:ChunkedAttention": (
            (8,),
            {"scaling": {"factor": 1.0}, "chunking": {"size": 4}},
        ),
    },
    "derived_through_helper": {
        f"pkg.rotary:{name}": ((8,), {})
        for name in (
            "Rotary",
            "StretchedRotary",
            "SmoothedRotary",
            "RebasedRotary",
            "MovedRotary",
        )
    },
    "nested_part_rebuilt": {
        "pkg.blocks:Mixer": ((8, 2), {}),
        **{
            f"pkg.blocks:{name}": ((8,), {})
            for name in ("Block", "WideInputBlock", "SharpBlock", "TiedBlock", "OwnMixerBlock")
        },
        "pkg.blocks:Gated": ((8,), {"wide": True}),
    },
    "reinit_live_object": {
        "pkg.wrap:Expert": ((8, 32), {}),
        **{f"pkg.wrap:{name}": ((8,), {}) for name in ("Router", "NarrowRouter", "PlainRouter")},
    },
    "optional_attribute_off": {
        "pkg.cache:Decoder": ((4,), {}),
        "pkg.cache:CachelessDecoder": ((4,), {}),
        "pkg.cache:MasklessDecoder": ((4,), {}),
    },
    "ancestor_resets_first": {
        "pkg.datasets:Dataset": ((TextFile(""),), {}),
        "pkg.datasets:MemoryDataset": ((TextFile(""),), {}),
        "pkg.datasets:Tables": ((TextFile(""),), {}),
        "pkg.datasets:MaybeTables": Skip("loads a table from a file it never saved"),
    },
    "cost_held_object": {
        "pkg.layers:MethodLinear": ((4, 4), {}),
        "pkg.layers:Block": ((4,), {}),
        "pkg.layers:WideBlock": ((4,), {}),
        "pkg.layers:LateLinear": ((4, 4), {}),
        "pkg.layers:LateBlock": ((4,), {}),
        "pkg.layers:WideLateBlock": ((4,), {}),
        "pkg.layers:PickedLinear": ((4, 4), {}),
        "pkg.layers:PickedBlock": ((4,), {}),
        "pkg.layers:WidePickedBlock": ((4,), {}),
    },
    "flag_picks_other_setup": {
        f"pkg.stem:{name}": ((4,), {}) for name in ("Backbone", "DeepBackbone", "CachelessBackbone")
    },
    "own_param_guard": {
        "pkg.proj:Encoder": ((4,), {}),
        "pkg.proj:ProjectedEncoder": ((4, 8), {}),  # the guard holds: a real repeat
        "pkg.proj:PlainEncoder": ((4,), {}),
    },
    "torch_base_params": {
        f"pkg.quant:{name}": ((4, 4), {}) for name in ("PackedLinear", "LateBias", "HalfLinear")
    },
    "type_checking_base": {
        **{f"pkg.variants:{n}": ((8,), {}) for n in ("WideBlock", "RenormedBlock", "KeptBlock")},
        "pkg.layers:Block": ((8,), {}),
        "pkg.layers:Table": ((16,), {}),
        "pkg.model:TabledModel": ((16,), {}),
        "pkg.variants:TableMixin": Skip("mixin only: it needs an nn.Module after it in the MRO"),
    },
    "class_default_param": {
        "pkg.layers:Mixer": ((8,), {}),
        "pkg.layers:Layer": ((8,), {}),
        "pkg.draft:DraftLayer": ((8,), {}),
        **{
            f"pkg.variants:{n}": ((8,), {})
            for n in ("WideLayer", "RenormedLayer", "FlatLayer", "ChosenLayer", "TunedLayer")
        },
    },
    "builder_spec": {
        **{f"pkg.layers:{n}": ((8,), {}) for n in ("Attention", "Mlp", "Block")},
        **{
            f"pkg.variants:{n}": ((8,), {})
            for n in (
                "RebuiltBlock",
                "WideBlock",
                "EpsBlock",
                "MlpBlock",
                "SettingsBlock",
                "KeptBlock",
            )
        },
    },
    "spec_fields": {
        "pkg.layers:Projection": ((8, 8), {}),
        "pkg.layers:Mixer": ((8, _FULL_PARTS), {}),
        "pkg.layers:Head": ((8, _HEAD_RECIPE), {}),
        "pkg.recipe:Recipe": ((None,), {}),
        "pkg.variants:TiedHead": ((8, _HEAD_RECIPE), {}),
        **{
            f"pkg.variants:{n}": ((8, _FULL_PARTS), {})
            for n in (
                "WideMixer",
                "GatedMixer",
                "RenormedMixer",
                "SwappedMixer",
                "RewrittenMixer",
                "OwnPartsMixer",
                "OutMixer",
            )
        },
    },
    "type_checking_mixin": {
        "pkg.core:Core": ((16,), {}),
        "pkg.model:Model": ((16,), {}),
        "pkg.mixins:TableMixin": Skip("mixin only: it needs an nn.Module after it in the MRO"),
    },
    "copying_wrapper": {
        "pkg.layers:Complexified": ((torch.nn.Linear(2, 2),), {}),
        "pkg.layers:Copied": ((torch.nn.Linear(2, 2),), {}),
        "pkg.layers:Wrapped": ((torch.nn.Linear(2, 2),), {}),
        "pkg.layers:CopiedAndKept": ((torch.nn.Linear(2, 2),), {}),
    },
    "module_init_by_metaclass": {
        "pkg.layers:RunsModuleInit": Skip("a metaclass: it builds classes, not modules"),
    },
    "zero_size_first_build": {
        "pkg.layers:Dense": ((4, 4), {}),
        "pkg.layers:DeferredDense": ((4,), {}),
        "pkg.layers:RetypedDense": ((4, 4), {}),
        "pkg.layers:Grouped": ((4, 4, (3,)), {}),
        "pkg.layers:DeferredGrouped": ((4, (3,)), {}),
        "pkg.layers:DeferredLinear": ((4,), {}),
        "pkg.layers:ResizedLinear": ((4, 4), {}),
    },
    # replaced only when given another model: the path that throws the first away
    "cost_plain_result": {"pkg.named:Copied": ((8,), {"other": Made("pkg.named:Embeddings")})},
    "discarded_builds": {
        "pkg.parts:Mixer": ((8,), {}),
        "pkg.parts:Shell": ((Made("pkg.parts:Mixer", (8,)),), {}),
        "pkg.twice:Block": ((8,), {}),
        "pkg.branches:Stage": ((8, True), {}),
        # replaced only when wide: the path that throws the first mixer away
        "pkg.branches:MaybeWider": ((8,), {"wide": True}),
        "pkg.helper:Head": ((8, 3), {}),
        "pkg.tables:Positions": ((4, 8), {}),
        "pkg.wrapped:Wrapped": ((8,), {}),
        "pkg.contained:Contained": ((8,), {}),
        "pkg.exclusive:Exclusive": ((8,), {}),
        "pkg.exclusive:AmongOthers": ((8,), {"mode": "sparse"}),
        # the path on which both builds run
        "pkg.exclusive:AmongThem": ((8,), {"mode": "dense"}),
        "pkg.exclusive:AssertedApart": ((8,), {"track": True}),
        # the path on which both builds run
        "pkg.exclusive:AssertedOther": ((8,), {"track": True, "extra": 2}),
        "pkg.placeholder:Placeholders": ((8,), {}),
        "pkg.placeholder:EmptyFirst": ((4, 8), {}),
        "pkg.light:Activation": ((True,), {}),
        "pkg.paths:EarlyReturn": ((8,), {"fast": True}),
        "pkg.paths:Matched": ((8,), {"kind": "wide"}),
        "pkg.paths:Fallback": ((8,), {}),
        "pkg.paths:Routed": ((8,), {}),
        "pkg.paths:Split": ((8,), {}),
        "pkg.early:Grid": ((4,), {}),
        "pkg.early:SeededGrid": ((4,), {}),
        "pkg.dropped:WithHead": ((8,), {}),
        "pkg.dropped:Headless": ((8,), {}),
        **{
            f"pkg.dropped:{name}": ((8,), {})
            for name in ("Trimmed", "Swapped", "Scratch", "Probed", "Detached")
        },
        "pkg.walked:Backbone": ((8,), {}),
        "pkg.walked:Encoder": ((8,), {}),
        "pkg.hooks:Layered": ((8,), {}),
        "pkg.hooks:WithExtra": ((8,), {}),
        "pkg.hooks:SkipsExtra": ((8,), {}),
        "pkg.hooks:Rebuilt": ((8,), {}),
    },
    "discarded_build_deleted": {
        "pkg.layers:Encoder": ((8, 4), {}),
        "pkg.layers:Decoder": ((8,), {}),
        "pkg.layers:Rotary": ((4, 6), {}),
    },
    "cost_imported_object": {
        "pkg.heads:Head": Skip("its registry comes from a library that does not exist"),
        "pkg.heads:SharedHead": Skip("its registry comes from a library that does not exist"),
        "pkg.heads:Scaled": Skip("its registry comes from a library that does not exist"),
    },
    "cost_data_made_here": {
        "pkg.outputs:Levels": Skip(
            "what it throws away is a list of strings: the trace records tensors and modules"
        ),
        "pkg.outputs:Table": (([1.0, 2.0], 2, 3), {}),
    },
    "work_into_local": {
        "pkg.data:Table": Skip("needs pandas and a JSON file"),
        "pkg.data:CleanTable": Skip("needs pandas and a JSON file"),
    },
}

# ---- tests/crosscheck/test_fixed_runtime.py ---------------------------------------------------

# The fix fixtures (tests/fixtures/fix/<case>/{in,out}) use SPECS[case]: their in/ trees are
# copies of the checker fixtures, and the fixes only add flag parameters with defaults.
# ``encodings`` has no checker twin; its classes take no arguments.

# The rope packages tests/fixtures/autofix/deepseek_v4_before, fixed_rope and the autofixed copy,
# keyed by ``module:Class`` below the package.
AUTOFIX_SPECS: dict[str, Spec] = {
    "base:RotaryEmbeddingBase": ((*_ROPE, torch.float32), {}),
    "deepseek:DeepseekScalingRotaryEmbedding": ((*_ROPE, 2.0, torch.float32), {}),
    "deepseek:DeepseekV4ScalingRotaryEmbedding": (
        (*_ROPE, 2.0, torch.bfloat16),
        {"beta_fast": 32, "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 0.0},
    ),
}

# Other arguments than SPECS[case] for some classes of a fix fixture: {probe: {module:Class: Spec}};
# the probe's name is ``<case>@<what>``.
PROBES: dict[str, dict[str, Spec]] = {
    # The other branch of the kind test, and the table not built at all.
    "discarded_build_deleted@kind=local": {"pkg.layers:Decoder": ((8,), {"kind": "local"})},
    "discarded_build_deleted@cached=False": {"pkg.layers:Rotary": ((4, 6), {"cached": False})},
    # The redo sits under `if n > 4:`; with n=2 it does not run.
    "redo_inside_if@n=2": {"pkg.child:Child": ((2,), {})},
    # `init_table=not fp32`: with fp32=False the redo does not run and Base's table stays.
    "redo_under_param_condition@fp32=False": {"pkg.prec:PrecChild": ((), {"fp32": False})},
    # `init_scale=bool(learn_scale)`: with learn_scale=True the redo does not run, Norm's does.
    "redo_under_negated_condition@learn_scale=True": {
        "pkg.norms:FrozenNorm": ((), {"learn_scale": True})
    },
}
