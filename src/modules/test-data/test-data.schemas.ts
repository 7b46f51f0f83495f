// DELETE /v1/test_data (docs/api.md §20): what the 202 says.
import { Type } from '@sinclair/typebox';

export const TestDataDeletion = Type.Object(
  {
    deleted: Type.Literal(true, { description: "The account's test objects are deleted; their bytes follow shortly." }),
  },
  { title: 'TestDataDeletion', additionalProperties: false },
);
