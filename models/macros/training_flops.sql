-- returns the training FLOPs of one run (model FLOPs; hardware FLOPs with recompute 'full').
--
--   6 * N_active * D_lm                         D_lm = text tokens + images * tokens_per_image
--                                               (4 * N instead of 6 when the LM is frozen and
--                                               gradients only pass through it)
-- + 12 * n_layers * d_model * seq_len * D_lm    attention scores at long context (PaLM App. B,
--                                               full counting; 6 when attention_causal)
-- + 6 * N_vision * images * tokens_per_image    vision tower (2 * N when frozen: forward only)
-- + 2 * N_teacher * tokens                      distillation: teacher forward passes
-- all x 8/6 with recompute = 'full' (an extra forward pass: Korthikanti et al. 2022).
-- flops_override, when given, is returned as is. Sources: ../shared/docs/cost-methods.md §1.

create or replace macro training_flops(
    params_active,
    tokens,
    n_layers := null,
    d_model := null,
    seq_len := null,
    attention_causal := false,
    images := 0,
    tokens_per_image := 0,
    vision_params := 0,
    vision_frozen := false,
    lm_frozen := false,
    teacher_params := 0,
    recompute := 'none',
    flops_override := null
) as coalesce(
    flops_override,
    (
        (case when coalesce(lm_frozen, false) then 4 else 6 end)
            * params_active
            * (tokens + coalesce(images, 0) * coalesce(tokens_per_image, 0))
        + coalesce(
            (case when coalesce(attention_causal, false) then 6 else 12 end)
                * n_layers * d_model * seq_len
                * (tokens + coalesce(images, 0) * coalesce(tokens_per_image, 0)),
            0
        )
        + (case when coalesce(vision_frozen, false) then 2 else 6 end)
            * coalesce(vision_params, 0) * coalesce(images, 0) * coalesce(tokens_per_image, 0)
        + 2 * coalesce(teacher_params, 0) * tokens
    ) * case lower(coalesce(recompute, 'none'))
        when 'none' then 1.0
        when 'full' then 8.0 / 6.0
        else error('recompute must be none or full, not ' || recompute)
    end
)
