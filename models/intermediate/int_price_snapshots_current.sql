-- one row per price observation in force: the rows loaded by the fetch in force of each
-- source x stream (see int_fetches_in_force), with that fetch's confirmed_at.

with

observations as (

    select * from stg_raw__price_observations

),

fetches_in_force as (

    select * from int_fetches_in_force

),

final as (

    select
        observations.*,
        fetches_in_force.stream,
        fetches_in_force.confirmed_at
    from observations
    inner join fetches_in_force
        on fetches_in_force.fetch_id = observations.fetch_id

)

select * from final
