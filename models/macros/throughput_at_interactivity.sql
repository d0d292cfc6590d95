-- returns one row per measured curve (mart inference_interactivity: one system on one model)
-- x price basis: the tokens per second per GPU the system delivers while each user is served
-- at tokens_per_user tokens/s, by linear interpolation between the two measured points that
-- bracket it on the curve's frontier (on_frontier: the points no other point beats on both
-- axes, so throughput falls as the speed per user rises: the interpolation is monotone), and
-- the cost per million output tokens there. Never extrapolated: a curve whose points do not reach
-- tokens_per_user on both sides has a null throughput and says so in `note`, with its
-- measured range. model (a benchmark key or a sweep's model id, case-insensitive) and
-- accelerator (an id or any spelling of accelerator_aliases) filter; null = every one.

create or replace macro throughput_at_interactivity(
    tokens_per_user, model := null, accelerator := null
) as table
with

wanted as (

    select
        cast(tokens_per_user as double) as user_speed,
        lower(cast(model as varchar)) as want_model,
        (
            select aliases.accelerator_id from accelerator_aliases as aliases
            where aliases.alias_key
                = name_key(cast(accelerator as varchar))
            limit 1
        ) as want_accelerator,
        cast(accelerator as varchar) as asked_accelerator

),

points as (

    select distinct
        curve.curve_id, curve.measured_by, curve.model, curve.accelerator_id,
        curve.accelerator_count, curve.software, curve.comparable, curve.point,
        curve.tokens_per_second_per_user as x, curve.tokens_per_second_per_gpu as y,
        curve.interactivity_basis
    from inference_interactivity as curve, wanted
    where curve.on_frontier
        and (wanted.want_model is null or lower(curve.model) = wanted.want_model)
        and (wanted.asked_accelerator is null
            or curve.accelerator_id = wanted.want_accelerator)

),

curves as (

    select
        points.curve_id,
        any_value(points.measured_by) as measured_by,
        any_value(points.model) as model,
        any_value(points.accelerator_id) as accelerator_id,
        any_value(points.accelerator_count) as accelerator_count,
        any_value(points.software) as software,
        bool_and(points.comparable) as comparable,
        count(*) as points,
        min(points.x) as min_tokens_per_second_per_user,
        max(points.x) as max_tokens_per_second_per_user,
        bool_or(points.interactivity_basis = 'tpot_bound') as uses_tpot_bound,
        -- the nearest measured point at or below the asked speed, and at or above it
        arg_max(points.x, points.x) filter (where points.x <= wanted.user_speed) as x_lo,
        arg_max(points.y, points.x) filter (where points.x <= wanted.user_speed) as y_lo,
        arg_min(points.x, points.x) filter (where points.x >= wanted.user_speed) as x_hi,
        arg_min(points.y, points.x) filter (where points.x >= wanted.user_speed) as y_hi,
        any_value(wanted.user_speed) as user_speed
    from points, wanted
    group by points.curve_id

),

interpolated as (

    select
        curves.*,
        case
            when curves.x_lo is null or curves.x_hi is null then null
            when curves.x_hi = curves.x_lo then curves.y_lo
            else curves.y_lo + (curves.y_hi - curves.y_lo)
                * (curves.user_speed - curves.x_lo) / (curves.x_hi - curves.x_lo)
        end as tokens_per_second_per_gpu
    from curves

),

prices as (

    select distinct
        curve.curve_id, curve.price_basis, curve.basis_kind, curve.provider,
        curve.price_per_gpu_hour, curve.price_observed_at
    from inference_interactivity as curve
    where curve.curve_id in (select interpolated.curve_id from interpolated)

)

select
    interpolated.curve_id,
    interpolated.measured_by,
    interpolated.model,
    interpolated.accelerator_id,
    interpolated.accelerator_count,
    interpolated.software,
    interpolated.comparable,
    interpolated.user_speed as tokens_per_second_per_user,
    interpolated.points,
    interpolated.min_tokens_per_second_per_user,
    interpolated.max_tokens_per_second_per_user,
    interpolated.tokens_per_second_per_gpu,
    case
        when interpolated.tokens_per_second_per_gpu is null
            then 'outside the measured range ' || printf('%.3g', interpolated.min_tokens_per_second_per_user)
                || '-' || printf('%.3g', interpolated.max_tokens_per_second_per_user)
                || ' tokens/s per user: not extrapolated'
        when interpolated.x_lo = interpolated.x_hi then 'a measured point'
        else 'interpolated between ' || printf('%.3g', interpolated.x_lo) || ' and '
            || printf('%.3g', interpolated.x_hi) || ' tokens/s per user'
    end
        || case when interpolated.uses_tpot_bound
            then ' (MLPerf points at the floor their TPOT limit guarantees)' else '' end
        as note,
    prices.price_basis,
    prices.basis_kind,
    prices.provider,
    prices.price_per_gpu_hour,
    prices.price_observed_at,
    prices.price_per_gpu_hour / (interpolated.tokens_per_second_per_gpu * 3600) * 1e6
        as usd_per_million_output_tokens
from interpolated
left join prices
    on prices.curve_id = interpolated.curve_id
