/** Console users: the admin use cases and the first-start admin. */
export { UsersService, userView } from './users.service.js';
export { usersOperations } from './users.operations.js';
